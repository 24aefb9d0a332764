// What an event's samples mean, decided once from its attr and name when
// the recording's attrs (and EVENT_UPDATE / EVENT_DESC names) are read
// (format::Session sets EventInfo::kind), and asked by every output
// (analysis::ProfileEvent::kind): the profile model, pprof, folded, the HTML
// page, report --wall, the timeline. No output re-derives it from a name.
//
// A new kind of event (a record extension's, docs/architecture.md "The
// walk") is one enumerator here, its case in classify_event, and the
// outputs' switch statements, which the compiler lists (-Wswitch).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "format/uapi/perf_event.h"

namespace sonde::format {

enum class EventKind : uint8_t {
  kCpuTime,         // cpu-clock, task-clock: periods are nanoseconds on CPU
  kOffcpuBlocked,   // offcpu-time: nanoseconds blocked, waiting for something
  kOffcpuRunnable,  // offcpu-time:preempt: nanoseconds runnable, waiting for a CPU
  kSdtHit,          // a bpf-output event: SDT probe hits (%provider:event), one per sample
  kTracepoint,      // a tracepoint: RAW fields described by the tracing data
  kCount,           // any other event: periods count its occurrences
};

// The off-CPU events' names (docs/format.md): perf names its own off-CPU
// event `offcpu-time`, so perf's recordings are recognised too.
inline constexpr std::string_view kOffcpuBlockedEvent = "offcpu-time";
inline constexpr std::string_view kOffcpuPreemptEvent = "offcpu-time:preempt";

EventKind classify_event(const perf_event_attr& attr, std::string_view name);
// The kind of an event known by its name and period unit only (the fleet
// store keeps no attr): nanoseconds are CPU time, or off-CPU time by the
// names above, as classify_event reads them; other units count.
EventKind classify_stored_event(std::string_view name, std::string_view unit);

// A kind's stable name, as the fleet store's event_kind column keeps it
// ("cpu-time", "offcpu-blocked", "offcpu-runnable", "sdt-hit",
// "tracepoint", "count"), and back; nullopt for any other text.
std::string_view kind_name(EventKind k);
std::optional<EventKind> kind_by_name(std::string_view name);

// Kinds whose periods are nanoseconds (on or off CPU).
inline bool is_time(EventKind k) {
  return k == EventKind::kCpuTime || k == EventKind::kOffcpuBlocked || k == EventKind::kOffcpuRunnable;
}
inline bool is_offcpu(EventKind k) { return k == EventKind::kOffcpuBlocked || k == EventKind::kOffcpuRunnable; }
// "nanoseconds" or "events": the unit of the kind's periods.
inline std::string_view period_unit(EventKind k) { return is_time(k) ? "nanoseconds" : "events"; }

}  // namespace sonde::format
