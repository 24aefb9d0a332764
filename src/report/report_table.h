// `sonde report`: perf report's --stdio table (columns, rows, call graphs)
// or sonde's JSON, computed from the shared Profile.
#pragma once

#include <cstdio>
#include <memory>
#include <regex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile.h"
#include "report/call_graph_options.h"
#include "report/report_fields.h"

namespace sonde::report {

struct ReportOptions {
  FieldLayout layout;          // from -F / --sort (layout_fields)
  bool children = true;        // Children and Self columns
  double percent_limit = 0;    // hide rows below this percentage
  bool call_graph = false;     // -g / -G
  CallGraphOptions graph;      // its order resolved (callee or caller)
  bool quiet = false;          // -q: rows only
  bool verbose = false;        // -v: objects' paths, symbols' addresses
  // -t/--field-separator: cells joined by it, values unpadded, its first
  // character replaced by '.' inside keys; no dotted rule (perf's field_sep).
  std::string field_sep;
  // -T: perf's per-thread counts table (the READ records of a `record -s`
  // recording, laid out by stat::format_thread_counts), printed last; unset
  // without -T.
  std::optional<std::string> thread_counts;
  bool json = false;
  bool sort_starts_with_sym = false;  // --sort sym...: perf leaves out a lone chain's first frame
  // Rows hidden (their samples still count in the percentages, as perf's).
  std::vector<std::string> comms, dsos;
  std::vector<uint32_t> pids, tids;
  std::optional<std::vector<std::string>> symbols;  // --symbols: only rows of samples in these (perf_symbol_names)
  std::string symbol_filter;  // only rows whose symbol contains this
  std::shared_ptr<const std::regex> parent, ignore_callees;
  std::string time_text;   // --time as given, for the Samples line
  std::string header;      // --header: the header facts, printed first
  size_t max_entries = 0;  // 0: all
};

void write_report(const analysis::Profile& p, const ReportOptions& opts, std::FILE* out);

}  // namespace sonde::report
