// `sonde report`: a perf-report-style table (Children/Self, sort keys,
// filters, call-graph trees) computed from the shared Profile.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/profile.h"

namespace sonde::report {

enum class SortKey { kComm, kPid, kTid, kDso, kSym, kSrcline };

// Parses "comm,dso,sym"; throws sonde::Error (usage) on an unknown key.
std::vector<SortKey> parse_sort_keys(const std::string& spec);

struct ReportOptions {
  std::vector<SortKey> sort{SortKey::kComm, SortKey::kDso, SortKey::kSym};
  bool children = true;        // Children and Self columns (false: Self only)
  bool show_samples = false;   // a Samples column
  double percent_limit = 0;    // hide entries below this percentage
  std::vector<std::string> dsos;  // only entries of these objects (path or basename)
  bool call_graph = false;
  bool caller_order = true;    // -g caller: root first; callee: the entry first
  double graph_threshold = 0.5;  // prune call-graph branches below this percentage
  bool json = false;
  size_t max_entries = 0;      // 0: all
};

struct ReportEntry {
  std::string comm, dso, sym, srcline;
  uint32_t pid = 0, tid = 0;
  bool kernel = false;
  uint64_t self_period = 0, children_period = 0;
  uint64_t self_samples = 0, children_samples = 0;
  double self_pct = 0, children_pct = 0;
  std::array<uint32_t, 6> key{};  // the row's identity, for call-graph lookups
};

struct EventReport {
  std::string name;
  uint64_t samples = 0, period = 0;
  std::vector<ReportEntry> entries;  // sorted, limited
};

// Computes the tables (one per event).
std::vector<EventReport> compute_report(const analysis::Profile& p, const ReportOptions& opts);

// Writes the text (perf-like) or JSON report.
void write_report(const analysis::Profile& p, const ReportOptions& opts, std::FILE* out);

}  // namespace sonde::report
