// The off-CPU events as they appear in a recording (docs/format.md): software
// bpf-output attrs named `offcpu-time` (the thread was blocked: waiting for
// something) and `offcpu-time:preempt` (it was runnable: waiting for a CPU),
// whose samples' period is nanoseconds off CPU. perf names its own off-CPU
// event `offcpu-time`, so perf's recordings are recognised too.
#pragma once

#include <string_view>

#include "format/uapi/perf_event.h"

namespace sonde::format {

inline constexpr std::string_view kOffcpuBlockedEvent = "offcpu-time";
inline constexpr std::string_view kOffcpuPreemptEvent = "offcpu-time:preempt";

inline bool is_offcpu_event(const perf_event_attr& a, std::string_view name) {
  return a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_BPF_OUTPUT &&
         (name == kOffcpuBlockedEvent || name == kOffcpuPreemptEvent);
}

// By name only, for the model (analysis::ProfileEvent keeps no attr type).
inline bool is_offcpu_event_name(std::string_view name) {
  return name == kOffcpuBlockedEvent || name == kOffcpuPreemptEvent;
}

}  // namespace sonde::format
