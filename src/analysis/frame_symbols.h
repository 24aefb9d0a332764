// What script and report need from symbolization, kept abstract so the
// printing code does not depend on how symbols are found.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/frames.h"
#include "elf/dwarf_info.h"  // InlineFrame

namespace sonde::analysis {

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
  // Functions inlined at the frame's address, innermost first (cleared
  // first; empty when unknown). The views live as long as this object.
  virtual void inline_names(const Frame& /*frame*/, uint32_t /*pid*/, std::vector<std::string_view>& out) { out.clear(); }
  // perf's inline list of a frame (its callchain printing with inline
  // support: perf trace, perf script): the inlined functions as above, then
  // the function holding them as DWARF names it, flagged not inlined. Empty
  // without DWARF for the address.
  virtual void function_chain(const Frame& /*frame*/, uint32_t /*pid*/, std::vector<InlineFrame>& out) { out.clear(); }
  // The source line of a frame's address from its object's DWARF line table
  // (script -F srcline, srccode); false when there is none.
  virtual bool source_line(const Frame& /*frame*/, uint32_t /*pid*/, SourceLine& /*out*/) { return false; }
};

}  // namespace sonde::analysis
