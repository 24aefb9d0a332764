// perf report's -g / --call-graph argument (util/callchain.c
// __parse_callchain_report_opt): comma-separated words, each any prefix of
// one of perf's (tried in perf's order: print type, order, sort key,
// value), and numbers (the threshold, then the print limit):
//   print type  graph (percentages of the whole event) | fractal (of the
//               parent) | flat | folded | none
//   threshold   hide branches below this percentage (default 0.5)
//   print limit at most this many branches per level (0: all)
//   order       caller (root first) | callee (the entry first)
//   sort key    function | address (and its source line) | srcline
//   branch      LBR branches (sonde's recordings have none: no effect)
//   value       percent | period | count
#pragma once

#include <cstdint>
#include <string_view>

namespace sonde::report {

enum class GraphMode { kNone, kGraph, kFractal, kFlat, kFolded };
enum class GraphOrder { kDefault, kCallee, kCaller };  // kDefault: perf's for the mode (see report.md)
enum class GraphKey { kFunction, kAddress, kSrcline };
enum class GraphValue { kPercent, kPeriod, kCount };

struct CallGraphOptions {
  GraphMode mode = GraphMode::kGraph;
  double threshold = 0.5;  // percent
  bool threshold_set = false;
  uint32_t print_limit = 0;
  GraphOrder order = GraphOrder::kDefault;
  GraphKey key = GraphKey::kFunction;
  bool branch = false;
  GraphValue value = GraphValue::kPercent;
};

// Throws a usage error (sonde::Error) naming the word it does not know.
CallGraphOptions parse_call_graph(std::string_view spec);

}  // namespace sonde::report
