// The kernel side of counting: one perf_event_open counter per event, CPU
// and thread of a CountTable, started, read and closed together.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "stat/count_table.h"
#include "util/fd.h"

namespace sonde::stat {

// What is counted: CPUs (-a, -C: one counter per CPU, every task), or
// tasks (a workload, -p, -t: one counter per thread, any CPU).
struct StatTarget {
  std::vector<int> cpus;             // system-wide CPUs; empty: per-task
  std::vector<ThreadEntry> threads;  // per-task threads; ignored when cpus is set
  bool per_thread_system = false;    // -a --per-thread: one counter per thread of every process
};

// Threads of the processes `pids` (their /proc/PID/task) and the threads
// `tids`, with their comms. Throws a runtime error for one that does not exist.
std::vector<ThreadEntry> threads_of(const std::vector<int>& pids, const std::vector<int>& tids);
// Every thread on the system (-a --per-thread), those that exit while read skipped.
std::vector<ThreadEntry> all_threads();

class Counters {
 public:
  // Opens every counter of `table.events` on the target's CPUs or threads,
  // and sets table.cpus/threads. An event the kernel refuses (no PMU, an
  // unknown tracepoint id) is marked !supported, as perf shows it; a
  // refusal for lack of permission is a runtime error.
  void open(CountTable& table, const StatTarget& target);
  void enable();
  void disable();
  // Reads every counter into `table` (cumulative values).
  void read(CountTable& table) const;
  // The kernel ids of one event's open counters, for HEADER_ATTR.
  std::vector<uint64_t> ids(size_t event) const;
  // The kernel id of one counter (0: not open), for STAT records.
  uint64_t id(size_t event, size_t cpu_idx, size_t thread_idx) const {
    return all_ids()[(event * ncpus_ + cpu_idx) * nthreads_ + thread_idx];
  }
  // The counter of (event, cpu, thread): -1 when not open.
  int fd(size_t event, size_t cpu_idx, size_t thread_idx) const;

 private:
  size_t ncpus_ = 0, nthreads_ = 0;
  std::vector<UniqueFd> fds_;  // events x cpus x threads
  // The kernel ids of every counter (the same grid, 0 where none is open),
  // read at the first call.
  const std::vector<uint64_t>& all_ids() const;
  mutable std::vector<uint64_t> ids_;
};

}  // namespace sonde::stat
