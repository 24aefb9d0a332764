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
#include "util/fd.h"

struct bpf_object;

namespace sonde::trace {

// What the summary counts: the followed threads (or all with -a), the
// calls -e selects (empty = all), each thread apart or all under tid 0.
struct SummaryScope {
  std::vector<uint32_t> syscalls;
  bool by_total = false;
};

class SyscallSummaryExtension : public record::RecordExtension {
 public:
  explicit SyscallSummaryExtension(SummaryScope scope);
  ~SyscallSummaryExtension() override;

  void prepare(const record::RecordTarget& target, const perf_event_attr& base) override;
  // Reads the statistics (once), then detaches.
  void stop() override;

  // The summary's threads, after stop(): calls, errors and times per
  // syscall; events = two per call (an entry and an exit, as perf's count).
  const std::vector<ThreadStats>& threads() const { return threads_; }
  // Calls not counted because a map was full (SONDE_SUMMARY_* kinds).
  uint64_t dropped() const { return dropped_[0] + dropped_[1]; }

 private:
  void load(const record::RecordTarget& target);
  void read_stats();

  SummaryScope scope_;
  bpf_object* obj_ = nullptr;
  std::vector<UniqueFd> links_;
  std::vector<ThreadStats> threads_;
  std::array<uint64_t, SONDE_SUMMARY_DROP_KINDS> dropped_{};
};

// One (thread, syscall) pair's per-CPU shares added up as the summary's
// CallStats (sum of squares → Welford's m2); `comm` gets the newest
// share's name. Pure: unit-tested.
CallStats merge_cpu_shares(const std::vector<sonde_summary_stats>& shares, std::string& comm);

}  // namespace sonde::trace
