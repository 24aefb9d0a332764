// perf annotate --stdio's layout (perf 6.1): the header line, the dashes,
// source lines before the instructions they produced, and each
// instruction's percentage; -l's sorted per-line summary before it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "annotate/annotated_symbol.h"
#include "annotate/source_files.h"

namespace sonde::annotate {

enum class PercentType { kLocalHits, kGlobalHits, kLocalPeriod, kGlobalPeriod };
// "local-period" and the other three (perf's --percent-type words);
// throws a usage error otherwise.
PercentType parse_percent_type(const std::string& word);

struct PrintOptions {
  PercentType percent_type = PercentType::kLocalPeriod;
  bool source = true;       // source lines between the instructions
  bool print_lines = false; // -l: the per-line summary first
  bool full_paths = false;  // -P
  bool asm_raw = false;     // the instruction bytes
  bool show_samples = false;  // -n: sample counts instead of percentages
};

// The percentage of `hits` for this symbol and event (perf's calc_percent).
double percent_of(const Hits& hits, const SymbolHist& sym, const EventHists& ev, PercentType type);

// Per source line (file:line, every inlined copy added up), hottest first:
// perf's --print-line summary (lines above 0.5% only when `perf_threshold`).
struct LineCost {
  std::string place;  // "file.c:12" (the full path with full_paths)
  double percent = 0;
  Hits self;
};
std::vector<LineCost> line_summary(const AnnotatedSymbol& sym, const EventHists& ev, const PrintOptions& opts,
                                   bool perf_threshold);

void print_stdio(const AnnotatedSymbol& sym, const EventHists& ev, const PrintOptions& opts, SourceFiles& sources,
                 std::FILE* out);

}  // namespace sonde::annotate

namespace sonde::annotate {

// -l over several symbols: one table of source lines across all of them,
// each line's copies (inlined into different callers) added up, hottest
// first, with the functions that hold a copy.
void print_cross_summary(const std::vector<AnnotatedSymbol>& syms, const EventHists& ev, const PrintOptions& opts,
                         std::FILE* out);

}  // namespace sonde::annotate
