// `sonde sched latency`: perf sched latency (6.1) — per task, the time it
// ran (sched_stat_runtime), how often it was switched in after waiting, and
// its average and maximum scheduling delay (wakeup or preemption to
// switch-in), tasks of one name merged, sorted by avg, max, switch, runtime.
#pragma once

#include <string>

namespace sonde::sched {

// The whole report's text, from the recording `input`.
std::string latency_report(const std::string& input);

}  // namespace sonde::sched
