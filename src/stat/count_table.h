// The counting model `stat`, `stat record` and `stat report` share: every
// event's count on every (CPU, thread) pair it was opened on, as perf's
// evsel counts are laid out. Live counting fills it from the kernel, `stat
// report` from STAT records; printing and aggregation read only this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/uapi/perf_event.h"

namespace sonde::stat {

// One reading: the count and the times the counter was enabled and
// actually running (they differ when the kernel multiplexed it).
struct CountValue {
  uint64_t val = 0, ena = 0, run = 0;
};

struct CounterEvent {
  std::string name;   // as perf prints it: "task-clock", "cs", "page-faults:u"
  std::string unit;   // "msec" for the clocks, else ""
  double scale = 1.0; // the clocks: 1e-6 (ns counted, msec shown)
  perf_event_attr attr{};
  bool supported = true;  // false: the kernel refused it (<not supported>)
  int group_leader = -1;  // index of its {group}'s leader, -1 when alone
  std::string sdt_spec;   // "%provider:event": counted by BPF, not perf_event_open
  std::string filter;     // --filter: the kernel counts only the hits it accepts (tracepoints)

  // task-clock and cpu-clock: the rate denominators, and "CPUs utilized".
  bool is_clock() const;
};

struct ThreadEntry {
  int pid = -1;  // -1: every thread (system-wide counting); counting a task: its thread id
  std::string comm;
  int tid = -1;  // READ records' rows (report -T): the thread, `pid` its process; -1 otherwise
};

class CountTable {
 public:
  std::vector<CounterEvent> events;
  std::vector<int> cpus{-1};              // -1: any CPU (per-task counting)
  std::vector<ThreadEntry> threads{{}};   // {-1}: every thread (system-wide)

  // Sizes the value grid to events x cpus x threads, zeroed.
  void reset_values();
  CountValue& at(size_t event, size_t cpu_idx, size_t thread_idx) { return values_[index(event, cpu_idx, thread_idx)]; }
  const CountValue& at(size_t event, size_t cpu_idx, size_t thread_idx) const {
    return values_[index(event, cpu_idx, thread_idx)];
  }
  // The index of CPU `cpu` in `cpus`, or -1.
  int cpu_index(int cpu) const;

 private:
  size_t index(size_t e, size_t c, size_t t) const { return (e * cpus.size() + c) * threads.size() + t; }
  std::vector<CountValue> values_;
};

// `now` minus `before`, field by field (interval deltas; a counter that
// went backwards, which the kernel never does, gives zero).
CountValue delta(const CountValue& now, const CountValue& before);

}  // namespace sonde::stat
