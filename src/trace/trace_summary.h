// perf trace -s's "Summary of events": per thread (fewest events first),
// each system call's calls, errors, total/min/avg/max milliseconds and the
// standard error of the mean as a percentage of it (perf's stddev column).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/arg_format.h"
#include "trace/syscall_tracer.h"

namespace sonde::trace {

// --summary-mode: a table per thread, one for all, or one per cgroup.
enum class SummaryMode { Thread, Total, Cgroup };

std::string format_summary(const std::vector<const ThreadStats*>& threads, uint64_t total_events,
                           const CommLookup& comm);

// --summary-mode=total: every thread's calls added up per syscall (Chan's
// merge of the running means and sums of squares).
ThreadStats total_of(const std::vector<const ThreadStats*>& threads);

// perf trace --summary-mode=total's one table: " total, N events".
std::string format_total_summary(const ThreadStats& total);

// perf trace --summary-mode=cgroup's tables, the cgroup with the most time
// in calls first: " cgroup PATH, N events" (PATH "[id N]" when unknown).
struct CgroupStats {
  std::string path;
  const ThreadStats* stats = nullptr;
};
std::string format_cgroup_summary(std::vector<CgroupStats> cgroups);

}  // namespace sonde::trace
