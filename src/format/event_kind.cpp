#include "format/event_kind.h"

#include <utility>

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

namespace {
constexpr std::pair<EventKind, std::string_view> kKindNames[] = {
    {EventKind::kCpuTime, "cpu-time"},     {EventKind::kOffcpuBlocked, "offcpu-blocked"},
    {EventKind::kOffcpuRunnable, "offcpu-runnable"}, {EventKind::kSdtHit, "sdt-hit"},
    {EventKind::kTracepoint, "tracepoint"}, {EventKind::kCount, "count"},
};
}  // namespace

std::string_view kind_name(EventKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name;
  return "count";
}

std::optional<EventKind> kind_by_name(std::string_view name) {
  for (const auto& [kind, text] : kKindNames)
    if (text == name) return kind;
  return std::nullopt;
}

}  // namespace sonde::format
