// `sonde sched timehist`: perf sched timehist (6.1) — one line per context
// switch with the task switched out, its wait time (since it last left a
// CPU), scheduling delay (wakeup to switch-in) and run time; -w adds the
// wakeups, --state the task's state, -s/-S the per-task runtime summary
// and the CPUs' idle time.
#pragma once

#include <string>

namespace sonde::sched {

struct TimehistOptions {
  bool wakeups = false;       // -w
  bool state = false;         // --state
  bool summary_only = false;  // -s
  bool summary = false;       // -S
};

// Writes the report for `input` to stdout as it goes.
void timehist_report(const std::string& input, const TimehistOptions& options);

}  // namespace sonde::sched
