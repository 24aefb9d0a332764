// `sonde report --wall`: where each thread's wall-clock time went, on CPU
// (cpu-clock or task-clock periods, nanoseconds) and off CPU (offcpu-time:
// blocked, offcpu-time:preempt: runnable, waiting for a CPU), in one unit
// and one table per thread. For a thread recorded from start to end, the
// three add up to its elapsed time (docs/offcpu.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/profile.h"

namespace sonde::report {

// Which column an event's period goes to.
enum class WallKind { kNone, kOnCpu, kBlocked, kRunnable };
WallKind wall_kind(const analysis::ProfileEvent& e);

struct WallTimes {
  uint64_t on_cpu = 0, blocked = 0, runnable = 0;  // nanoseconds
  uint64_t wall() const { return on_cpu + blocked + runnable; }
  void add(WallKind k, uint64_t ns);
};

struct WallFunction {
  std::string name;
  WallTimes times;  // of the samples whose stack holds the function (once each)
};

struct WallThread {
  uint32_t pid = 0, tid = 0;
  std::string comm;
  WallTimes times;
  std::vector<WallFunction> functions;  // by wall time, largest first
};

// The threads by wall time, largest first. Throws a runtime error when the
// profile holds no off-CPU event (nothing to add to the CPU time).
std::vector<WallThread> compute_wall(const analysis::Profile& p);

struct WallOptions {
  double percent_limit = 1;  // per thread, hide functions below this share of its wall time
};
void write_wall_report(const analysis::Profile& p, const WallOptions& opts, std::FILE* out);

}  // namespace sonde::report
