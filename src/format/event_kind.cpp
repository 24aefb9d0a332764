#include "format/event_kind.h"

namespace sonde::format {

EventKind classify_event(const perf_event_attr& a, std::string_view name) {
  if (a.type == PERF_TYPE_TRACEPOINT) return EventKind::kTracepoint;
  if (a.type != PERF_TYPE_SOFTWARE) return EventKind::kCount;
  switch (a.config) {
    case PERF_COUNT_SW_CPU_CLOCK:
    case PERF_COUNT_SW_TASK_CLOCK:
      return EventKind::kCpuTime;
    case PERF_COUNT_SW_BPF_OUTPUT:
      if (name == kOffcpuBlockedEvent) return EventKind::kOffcpuBlocked;
      if (name == kOffcpuPreemptEvent) return EventKind::kOffcpuRunnable;
      return EventKind::kSdtHit;
    default:
      return EventKind::kCount;
  }
}

}  // namespace sonde::format
