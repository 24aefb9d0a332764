// A report row's call chains printed as perf report --stdio prints them
// (ui/stdio/hist.c: callchain__fprintf_graph, _flat, _folded): the graph
// with its "|" and "--12.34%--" branches, the flat list of whole chains,
// or folded "a;b;c" lines.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <string>

#include "report/call_graph_options.h"
#include "report/call_tree.h"

namespace sonde::report {

struct GraphPrint {
  const CallGraphOptions& options;
  // A frame's text (perf's callchain_list__sym_name).
  std::function<std::string(const ChainElem&)> name;
  // perf leaves out a lone chain's first frame when the rows are sorted by
  // symbol (--sort sym...): it is the row's own symbol.
  bool skip_first_frame = false;
};

// `total`: the event's period; `entry_period`: the row's (its Children
// period when Children are shown).
void print_call_graph(const CallTree& tree, const GraphPrint& how, uint64_t total, uint64_t entry_period,
                      fmt::memory_buffer& out);

}  // namespace sonde::report
