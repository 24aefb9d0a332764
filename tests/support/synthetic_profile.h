// Profiles built by hand for tests of the outputs (convert, top): one
// resolved function per location, in one mapping.
#pragma once

#include <cstdint>
#include <string_view>

#include "analysis/profile.h"

namespace sonde::test {

// Adds a resolved function `name` in `mapping` and a location of it at
// `address`; returns the location's index.
inline uint32_t add_function_location(analysis::Profile& p, std::string_view name, uint32_t mapping,
                                      uint64_t address = 0) {
  analysis::ProfileFunction f;
  f.name = f.raw_name = p.intern(name);
  f.mapping = mapping;
  f.resolved = true;
  p.functions.push_back(f);
  analysis::ProfileLocation loc;
  loc.mapping = mapping;
  loc.address = address;
  loc.function = static_cast<uint32_t>(p.functions.size() - 1);
  p.locations.push_back(loc);
  return static_cast<uint32_t>(p.locations.size() - 1);
}

}  // namespace sonde::test
