// The kernel side of --call-graph cfi: the embedded unwinder (cfi.bpf.c),
// its maps (processes' mappings, tables, rows, counters) and its ring
// buffer. The program is attached to the recorder's own sampling events
// (PERF_EVENT_IOC_SET_BPF): it lives as long as those fds and this object,
// so the kernel unloads it when the recorder exits, even by SIGKILL.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>

#include "bpf/bpf_ring.h"
#include "cfi/cfi_abi.h"

struct bpf_object;

namespace sonde::cfi {

struct CfiBpfSizes {
  uint32_t max_tables = 4096;
  uint32_t max_rows = 1u << 21;  // 16 MiB of rows
};

class CfiBpf {
 public:
  // Loads the program and creates its maps. Throws sonde::Error (runtime)
  // with the kernel's reason when BPF cannot be used.
  explicit CfiBpf(const CfiBpfSizes& sizes);
  ~CfiBpf();
  CfiBpf(const CfiBpf&) = delete;
  CfiBpf& operator=(const CfiBpf&) = delete;

  void configure(const sonde_cfi_config& config);
  // Runs the program on every overflow of a perf event. Throws a runtime error.
  void attach(int perf_event_fd);
  int program_fd() const { return prog_; }
  // A map of the loaded object by name (the off-CPU program reuses the
  // walker's: processes, tables, rows, requests, asked); -1 if none.
  int map_fd(const char* name) const;

  // Tables: rows[first, first + rows.size()) then table `index`'s descriptor
  // (the program never sees a descriptor whose rows are not in yet).
  // False when the kernel refused them.
  bool set_table(uint32_t index, const sonde_cfi_table& table, std::span<const uint64_t> rows);
  bool set_process(pid_t tgid, const sonde_cfi_process& process);
  void forget_process(pid_t tgid);

  // Calls `on_sample` for each sample in the ring buffer; the span of
  // frames (kernel then user) is valid during the call.
  using SampleFn = std::function<void(const sonde_cfi_sample&, std::span<const uint64_t>)>;
  void consume(const SampleFn& on_sample);
  int events_fd() const;  // pollable: readable when the ring buffer has samples
  // Processes the program asked to have their mappings read again.
  void consume_requests(const std::function<void(pid_t)>& on_request);
  int requests_fd() const;  // pollable: readable when there are requests
  uint64_t stat(uint32_t which) const;

 private:
  bpf_object* obj_ = nullptr;
  bpf::BpfRing ring_, requests_;
  int prog_ = -1;
  int config_fd_ = -1, stats_fd_ = -1, processes_fd_ = -1, tables_fd_ = -1, rows_fd_ = -1, events_fd_ = -1;
};

}  // namespace sonde::cfi
