// `sonde report`: a perf-report-style table (Children/Self, sort keys,
// filters, call-graph trees) computed from the shared Profile.
#pragma once

#include <fmt/format.h>

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
  std::vector<uint32_t> pids, tids;  // only samples of these processes / threads (empty: all)
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
  // The thread of the entry's first sample, whatever the sort keys (perf's
  // hist entry thread: what `sonde top` zooms into).
  uint32_t thread_pid = 0, thread_tid = 0;
};

struct EventReport {
  std::string name;
  uint64_t samples = 0, period = 0;
  std::vector<ReportEntry> entries;  // sorted, limited
};

// Computes the tables (one per event).
std::vector<EventReport> compute_report(const analysis::Profile& p, const ReportOptions& opts);

// The text table's columns, shared by `report` and `sonde top`: widths from
// the entries, as perf sizes them.
struct TableLayout {
  size_t comm = 7, dso = 13;
};
TableLayout table_layout(const std::vector<ReportEntry>& entries);
// The column names ("Children      Self  Shared Object  Symbol"), aligned
// with format_row's fields; the report prints them after "# ".
std::string table_header(const ReportOptions& opts, const TableLayout& layout);
// One entry's row, without a newline.
void format_row(const ReportOptions& opts, const ReportEntry& entry, const TableLayout& layout, fmt::memory_buffer& buf);

// The call graph of `entry`, one of compute_report(p, opts)[event]'s
// (`report`), as the text report prints it under the entry.
std::string format_call_graph(const analysis::Profile& p, const ReportOptions& opts, uint32_t event,
                              const EventReport& report, const ReportEntry& entry);

// Writes the text (perf-like) or JSON report.
void write_report(const analysis::Profile& p, const ReportOptions& opts, std::FILE* out);

}  // namespace sonde::report
