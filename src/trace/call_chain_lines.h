// The call chain perf trace prints under a call's line with --call-graph:
// one frame per line, leaf first, indented to the column where the call's
// name starts, as `SYMBOL (DSO)`. With DWARF for the address, perf's inline
// list instead: the functions inlined there, innermost first, then the one
// holding them, each `NAME (inlined)` unless it is the symbol table's name
// (perf's new_inline_sym: a DWARF name that differs from the ELF symbol's,
// `__libc_start_main_impl` for `__libc_start_main@@GLIBC_2.34`, is shown as
// inlined). A frame without a symbol is `[0xOFFSET] (DSO)`
// (perf's EVSEL__PRINT_UNKNOWN_AS_ADDR). Every frame the sample carries: a
// live trace records the user part only (perf trace leaves the kernel's out
// unless asked, --kernel-syscall-graph); perf trace record's files carry the
// kernel's too, and perf prints them on replay.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/address_space.h"
#include "analysis/frame_symbols.h"
#include "analysis/frames.h"
#include "format/sample.h"

namespace sonde::trace {

class CallChainLines {
 public:
  // `max_stack` 0: every frame.
  CallChainLines(analysis::FrameSymbols& symbols, size_t max_stack) : symbols_(symbols), max_stack_(max_stack) {}

  // The lines for sample `s` (its callchain, or its unwound dwarf stack),
  // "" when it has none.
  std::string lines(const format::Sample& s, const analysis::AddressSpace& space);

 private:
  void append_frame(const analysis::Frame& f, uint32_t pid, std::string& out);

  analysis::FrameSymbols& symbols_;
  size_t max_stack_;
  std::vector<analysis::Frame> frames_;
  std::vector<InlineFrame> chain_;
};

}  // namespace sonde::trace
