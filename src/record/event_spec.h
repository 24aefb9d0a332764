// The -e event list: generic software/hardware events with :u/:k modifiers,
// tracepoints `system:name` (globs allowed), and `%provider:event` specs
// that belong to a RecordExtension (SDT). Parsing checks names only; the
// kernel decides later whether an event can be opened.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "record/tracing_data.h"

namespace sonde::record {

struct EventSpec {
  std::string name;  // as written into EVENT_UPDATE NAME ("cycles:u", "sched:sched_switch")
  uint32_t type = 0;
  uint64_t config = 0;
  bool exclude_user = false;
  bool exclude_kernel = false;
  bool tracepoint = false;
  Tracepoint tp;     // for tracepoints: format text for HEADER_TRACING_DATA
};

struct ParsedEvents {
  std::vector<EventSpec> events;
  std::vector<std::string> extension_specs;  // "%provider:event", for the extension factory
};

// Parses repeated -e values, each possibly a comma list. Tracepoints are
// resolved through tracefs (mounted on demand). Throws a usage error for an
// unknown event or modifier. With no -e at all, returns cpu-clock.
ParsedEvents parse_events(const std::vector<std::string>& args);

// perf's fallback on a machine without a hardware PMU: `cycles` (with its
// modifiers) becomes `cpu-clock`. Returns perf's warning ("The cycles event
// is not supported, trying to fall back to cpu-clock") when `e` was
// rewritten, "" otherwise. `has_pmu` is kernel::has_cpu_pmu().
std::string fall_back_to_cpu_clock(EventSpec& e, bool has_pmu);

}  // namespace sonde::record
