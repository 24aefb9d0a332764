// What script and report need from symbolization, kept abstract so the
// printing code does not depend on how symbols are found.
#pragma once

#include <cstdint>
#include <string_view>

#include "report/frames.h"

namespace sonde::report {

struct SymbolName {
  std::string_view name;    // "" when unresolved
  uint64_t offset = 0;      // into the symbol
  std::string_view reason;  // why unresolved ("[unknown]", "not found", "build-id mismatch", ...)
  std::string_view dso;     // the object's display name
};

class FrameSymbols {
 public:
  virtual ~FrameSymbols() = default;
  virtual SymbolName symbolize(const Frame& frame, uint32_t pid) = 0;
};

}  // namespace sonde::report
