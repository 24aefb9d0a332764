// Tracepoints: tracefs (mounted on demand), id lookup, and the
// HEADER_TRACING_DATA blob perf needs to decode their raw fields
// (its layout: docs/format.md, HEADER_TRACING_DATA).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::record {

struct Tracepoint {
  std::string system;
  std::string name;
  uint64_t id = 0;      // attr.config
  std::string format;   // events/<system>/<name>/format
};

// The tracefs root, mounting tracefs at /sys/kernel/tracing if it is not
// mounted yet. Throws a runtime error if that fails.
std::string tracefs_root();

// Tracepoints matching `system:name`; both parts may be fnmatch globs.
// Throws a usage error if nothing matches.
std::vector<Tracepoint> find_tracepoints(std::string_view system, std::string_view name);

// The tracepoint whose id is `id` (for extension attrs of type TRACEPOINT).
// Returns false if there is none.
bool find_tracepoint_by_id(uint64_t id, Tracepoint& out);

// The blob that follows HEADER_TRACING_DATA, unpadded (the writer pads it to 8).
std::vector<uint8_t> build_tracing_data(const std::vector<Tracepoint>& tps);

}  // namespace sonde::record
