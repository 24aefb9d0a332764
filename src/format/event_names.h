// Names of the generic software and hardware events, as perf spells them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "format/perf_abi.h"

namespace sonde::format {

struct NamedEvent {
  std::string_view name;
  uint32_t type;    // PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE
  uint64_t config;
};

// Looks up "cpu-clock", "page-faults", "cycles", ... (with perf's aliases).
std::optional<NamedEvent> find_generic_event(std::string_view name);
// Every name find_generic_event knows; for one (type, config) the canonical
// name comes first, then its aliases.
std::span<const NamedEvent> generic_events();

// A readable name for an attr when the stream names none: the generic name,
// or "type:config" in hex.
std::string default_event_name(const perf_event_attr& attr);

}  // namespace sonde::format
