// `sonde record --call-graph cfi`: the RecordExtension that loads the CFI
// unwinder (cfi_bpf.h) onto the recorder's sampling event, keeps the
// processes' mappings and their unwind tables in its maps (a worker thread
// reads /proc/PID/maps and compiles tables when a process or an executable
// mapping appears: table_store.h) and writes the program's samples into
// the stream as the recorder's own event's (cfi_sample.h). docs/cfi.md.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cfi/cfi_bpf.h"
#include "cfi/table_store.h"
#include "record/record_extension.h"

namespace sonde::cfi {

struct CfiOptions {
  CfiBpfSizes sizes;
};

// What the program counted, for the summary and tests.
struct CfiCounts {
  uint64_t samples = 0, written = 0, no_table = 0, ring_full = 0, no_cpu_id = 0;
  uint64_t stops[SONDE_CFI_NSTOPS] = {};
  uint64_t cfi_frames = 0, fp_frames = 0;
};

class CfiExtension : public record::RecordExtension {
 public:
  explicit CfiExtension(CfiOptions options = {});
  ~CfiExtension() override;

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  // Its samples are the recorder's event's: no attr, no ring, no RAW.
  void on_sampling_events(std::span<const record::SamplingEvent> events) override;
  int wake_fd() const override;
  size_t produce(const record::RecordWrite& write, bool final) override;
  void on_fork(pid_t pid, pid_t ppid) override;
  void on_exit(pid_t pid) override;
  void on_exec_mapping(pid_t pid, const std::string& path, const BuildId& id) override;
  void stop() override;

  // A map of the walker once prepared (CfiBpf::map_fd), else -1.
  int map_fd(const char* name) const { return bpf_ ? bpf_->map_fd(name) : -1; }
  CfiCounts counts() const;
  TableTotals table_totals() const;

 private:
  void refresh(pid_t pid);  // the process's mappings into the program's map
  void enqueue(pid_t pid);
  void work();
  bool exec_done() const;
  void report() const;

  CfiOptions options_;
  std::unique_ptr<CfiBpf> bpf_;
  std::unique_ptr<TableStore> store_;
  uint64_t sample_type_ = 0;
  pid_t workload_pid_ = -1;  // -- CMD: watched at its start
  std::string command_path_;
  std::vector<uint64_t> id_by_cpu_;  // the sampling event's kernel id on each CPU (0: none)
  std::vector<uint8_t> record_;
  uint64_t written_ = 0, no_cpu_id_ = 0;
  bool stopped_ = false;
  CfiCounts final_counts_;  // after stop()

  mutable std::mutex mu_;  // the queue, and the store once the worker runs
  std::deque<pid_t> queue_;
  std::set<pid_t> queued_;
  bool quit_ = false;
  std::thread worker_;
};

}  // namespace sonde::cfi
