#include "format/event_kind.h"

namespace sonde::format {

namespace {

// The off-CPU events are bpf-output events told apart by their names only.
EventKind offcpu_or(std::string_view name, EventKind otherwise) {
  if (name == kOffcpuBlockedEvent) return EventKind::kOffcpuBlocked;
  if (name == kOffcpuPreemptEvent) return EventKind::kOffcpuRunnable;
  return otherwise;
}

}  // namespace

EventKind classify_event(const perf_event_attr& a, std::string_view name) {
  if (a.type == PERF_TYPE_TRACEPOINT) return EventKind::kTracepoint;
  if (a.type != PERF_TYPE_SOFTWARE) return EventKind::kCount;
  switch (a.config) {
    case PERF_COUNT_SW_CPU_CLOCK:
    case PERF_COUNT_SW_TASK_CLOCK:
      return EventKind::kCpuTime;
    case PERF_COUNT_SW_BPF_OUTPUT:
      return offcpu_or(name, EventKind::kSdtHit);
    default:
      return EventKind::kCount;
  }
}

EventKind classify_stored_event(std::string_view name, std::string_view unit) {
  if (unit != period_unit(EventKind::kCpuTime)) return EventKind::kCount;
  return offcpu_or(name, EventKind::kCpuTime);
}

}  // namespace sonde::format
