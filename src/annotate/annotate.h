// `sonde annotate`: a recording's samples per instruction and per source
// line of its hottest symbols (or the ones named), in perf annotate
// --stdio's layout (docs/annotate.md).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "annotate/disassembler.h"
#include "annotate/sample_hists.h"
#include "annotate/stdio_printer.h"
#include "annotate/symbol_code.h"
#include "symbol/symbolizer.h"

namespace sonde::annotate {

struct AnnotateOptions {
  std::string input;
  std::vector<std::string> symbols;  // empty: every symbol above percent_limit, hottest first
  std::vector<std::string> dsos;
  PrintOptions print;
  Syntax syntax = Syntax::kAtt;
  double percent_limit = 0;  // of the event's period, as perf's --percent-limit
  bool skip_missing = false;
  bool inclusive = true;
  SymbolizerOptions symbolizer;  // vmlinux_path: -k, the kernel's code and symbols
  CodeOptions code;              // --kcore
};

// Reads the recording once (samples per symbol, call chains for the call
// instructions' inclusive cost).
std::vector<EventHists> collect_hists(const std::string& input, Symbolizer& symbolizer, const CollectOptions& opts,
                                      std::vector<std::string>& notes);

// The symbols worth annotating: the named ones (those with only inclusive
// cost too), else those with samples at or above `percent_limit` of the
// event's period; hottest first.
std::vector<const SymbolHist*> symbols_to_annotate(const EventHists& ev, const std::vector<std::string>& names,
                                                   double percent_limit);

// Prints every annotation to `out`; notes for stderr go to `notes`. Throws
// sonde::Error (one line) when a named symbol has no samples or cannot be
// annotated (unless skip_missing).
void run_annotate(const AnnotateOptions& opts, std::FILE* out, std::vector<std::string>& notes);

}  // namespace sonde::annotate
