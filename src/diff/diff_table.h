// `sonde diff BASE NEW`: per event both recordings have, one row per value
// of the sort keys (default dso,sym, as perf diff), matched by object file
// name (or build-id, object_keys.h) and symbol: each side's share of its
// event's total, and the change. The text layout is perf diff's.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile.h"

namespace sonde::diff {

// perf diff's -c: what the last column shows and the rows are sorted by.
enum class Compute { kDeltaAbs, kDelta, kRatio };

// The last column's title for -c ("Delta Abs", "Delta", "Ratio").
std::string compute_column(Compute c);

struct DiffOptions {
  std::string sort = "dso,sym";  // comm, pid, dso, sym (report's --sort keys)
  double percent_limit = 0;      // hide rows under this share on both sides
  Compute compute = Compute::kDeltaAbs;
};

// The keys rows are told apart by, in the sort list's order.
enum class DiffKey { kComm, kPid, kDso, kSym };

struct DiffRow {
  std::string comm, dso, sym;  // the sort keys' values ("" when not a key)
  uint32_t tid = 0;
  bool kernel = false;
  bool in_base = false, in_new = false;
  uint64_t base_period = 0, new_period = 0;
  double base_pct = 0, new_pct = 0;
  double delta() const { return new_pct - base_pct; }
  // NEW's share over BASE's; none when BASE has no share.
  std::optional<double> ratio() const;
};

struct EventDiff {
  std::string event;
  std::vector<DiffKey> keys;
  uint64_t base_samples = 0, new_samples = 0;
  uint64_t base_period = 0, new_period = 0;
  std::vector<DiffRow> rows;  // sorted as `compute` says, above the limit
};

// Throws a usage error for an unknown sort key, a runtime error when the
// two recordings have no event in common.
// perf diff's cell for -c: "%+4.2f%%" for deltas, "%14.6f" for ratios
// (empty where NEW has no row).
std::string value_cell(const DiffRow& r, Compute c);

std::vector<EventDiff> compute_diff(const analysis::Profile& base, const analysis::Profile& now, const DiffOptions& o);

// perf diff's layout: "# Event 'E'", the column names and dots, the rows.
std::string format_diff_text(const std::vector<EventDiff>& diffs, const DiffOptions& o);
// sonde's JSON schema (docs/export.md).
std::string format_diff_json(const std::vector<EventDiff>& diffs, const DiffOptions& o);

}  // namespace sonde::diff
