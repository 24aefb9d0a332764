// `sonde record --off-cpu [--off-cpu-thresh MS]`: the RecordExtension that
// loads the off-CPU program (offcpu_bpf.h), tells it which threads to
// follow (the workload, -p, -t, or every thread with -a) and writes its
// blocks into the recorder's stream as they come: each block at or above
// the threshold as one sample with its own timestamp, shorter ones as one
// sample per (thread, stacks, kind) at least every 100 ms. See
// docs/offcpu.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "offcpu/offcpu_abi.h"
#include "offcpu/offcpu_bpf.h"
#include "record/record_extension.h"

namespace sonde::offcpu {


// perf's default --off-cpu-thresh.
inline constexpr uint64_t kDefaultThreshMs = 500;
// The default with --call-graph dwarf: only blocks sent one by one carry a
// user stack copy (a sum cannot), so the blocks that matter must be sent.
inline constexpr uint64_t kDefaultDwarfThreshMs = 1;
// The recorder flushes the in-kernel sums at least this often.
inline constexpr auto kFlushInterval = std::chrono::milliseconds(50);

struct OffcpuOptions {
  std::optional<uint64_t> thresh_ms;  // --off-cpu-thresh; unset: kDefaultThreshMs, or kDefaultDwarfThreshMs
  // --call-graph cfi: the CFI walker's maps (called in prepare(), after the
  // cfi extension's), to walk user stacks at switch-out with its tables.
  std::function<CfiMaps()> cfi_maps;
};

// Parses --off-cpu-thresh: milliseconds, an integer from 0 to one hour.
// Throws a usage error.
uint64_t parse_offcpu_thresh(const std::string& text);

// Where the kernel's __schedule is (from /proc/kallsyms text): the first
// frame of an off-CPU kernel stack that belongs to the thread. {0, 0} when
// the symbol is not there.
struct SchedulerRange {
  uint64_t begin = 0, end = 0;
};
SchedulerRange scheduler_range(std::string_view kallsyms);
// Drops the frames before the first one in `range` (the BPF program and the
// tracepoint's code); keeps everything when none is in it.
void trim_to_scheduler(std::vector<uint64_t>& kernel_frames, const SchedulerRange& range);

class OffcpuExtension : public record::RecordExtension {
 public:
  explicit OffcpuExtension(OffcpuOptions options);
  ~OffcpuExtension() override;

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  // Its samples are made here, with their own layout: the recorder's need no RAW.
  std::vector<format::EventDesc> attrs() override;
  int wake_fd() const override;
  size_t produce(const record::RecordWrite& write, bool final) override;
  void on_fork(pid_t pid, pid_t ppid) override;
  void stop() override;

  // For tests: what the program counted (SONDE_OFFCPU_STAT_*).
  uint64_t stat(uint32_t which) const;

 private:
  void write_block(const record::RecordWrite& write, const sonde_offcpu_key& key, uint32_t cpu, uint64_t time,
                   uint64_t ns, const OffcpuBpf::UserStack& copy = {});
  const std::vector<uint64_t>& frames(int32_t stack_id, bool kernel);
  void flush_sums(const record::RecordWrite& write, bool all);
  void flush_open_blocks(const record::RecordWrite& write);
  void warn_losses() const;

  OffcpuOptions options_;
  std::unique_ptr<OffcpuBpf> bpf_;
  perf_event_attr base_{};
  bool filter_ = false;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_flush_{};
  SchedulerRange scheduler_;
  std::unordered_map<int32_t, std::vector<uint64_t>> stacks_;  // stack map id -> frames (ids are never reused)
  std::vector<uint8_t> record_;  // one sample, reused
  size_t written_ = 0;           // samples in the current produce() call
};

}  // namespace sonde::offcpu
