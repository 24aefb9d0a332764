// perf trace -s computed in BPF maps (`trace -s --bpf-summary`, the default
// for `trace -s -a`): a RecordExtension that counts every followed
// thread's calls in the kernel (syscall_summary.bpf.c) and, when the
// recording stops, reads the per-CPU statistics back as the summary's
// ThreadStats. Nothing is streamed, so a busy system loses no call to a
// full ring buffer; a call the maps had no room for is counted (dropped()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "record/record_extension.h"
#include "trace/syscall_summary_abi.h"
#include "trace/syscall_tracer.h"
#include "trace/trace_summary.h"
#include "util/fd.h"

struct bpf_object;

namespace sonde::trace {

// What the summary counts: the followed threads (or all with -a), the
// calls -e selects (empty = all), grouped by `mode`.
struct SummaryScope {
  std::vector<uint32_t> syscalls;
  SummaryMode mode = SummaryMode::Thread;
};

// One table's calls: `owner` is the thread id, 0 (total) or the cgroup id.
struct SummaryGroup {
  uint64_t owner = 0;
  ThreadStats stats;
};

class SyscallSummaryExtension : public record::RecordExtension {
 public:
  explicit SyscallSummaryExtension(SummaryScope scope);
  ~SyscallSummaryExtension() override;

  // Loads the program (once; prepare() does it otherwise): "" when it
  // loads on this machine, or why not (no libbpf, no permission...).
  std::string load_program();

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  // Reads the statistics (once), then detaches.
  void stop() override;

  // The summary's tables, after stop(), in owner order: calls, errors and
  // times per syscall; events = two per call (an entry and an exit, as
  // perf's count); for a thread, its pid, tid and newest name.
  const std::vector<SummaryGroup>& groups() const { return groups_; }
  // Calls not counted because a map was full (SONDE_SUMMARY_* kinds).
  uint64_t dropped() const { return dropped_[0] + dropped_[1]; }

 private:
  void load(const record::RecordTarget& target);
  void read_stats();

  SummaryScope scope_;
  bpf_object* obj_ = nullptr;
  std::vector<UniqueFd> links_;
  std::vector<SummaryGroup> groups_;
  std::array<uint64_t, SONDE_SUMMARY_DROP_KINDS> dropped_{};
};

// One (thread, syscall) pair's per-CPU shares added up as the summary's
// CallStats (sum of squares → Welford's m2). `comm` takes a share's name
// when that share's last call is not older than `newest` (the thread's
// newest call so far, over all its syscalls), which then moves on: the
// thread is named as at its last call. Pure: unit-tested.
CallStats merge_cpu_shares(const std::vector<sonde_summary_stats>& shares, std::string& comm, uint64_t& newest);

}  // namespace sonde::trace
