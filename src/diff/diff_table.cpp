#include "diff/diff_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "diff/object_keys.h"
#include "report/hist.h"
#include "report/report_rows.h"
#include "util/error.h"

namespace sonde::diff {

using analysis::Profile;
using report::Field;

std::optional<double> DiffRow::ratio() const {
  if (!in_base || base_pct == 0) return std::nullopt;
  return new_pct / base_pct;
}

namespace {

report::FieldLayout diff_layout(const std::string& sort, std::vector<DiffKey>& keys) {
  report::FieldLayout layout = report::layout_fields({std::nullopt, sort, false, false});
  for (Field f : layout.sort) {
    if (!report::is_key(f)) continue;
    switch (f) {
      case Field::kComm: keys.push_back(DiffKey::kComm); break;
      case Field::kPid:
      case Field::kTid: keys.push_back(DiffKey::kPid); break;
      case Field::kDso: keys.push_back(DiffKey::kDso); break;
      case Field::kSym: keys.push_back(DiffKey::kSym); break;
      default:
        throw_usage("diff: --sort {}: only comm, pid, dso and sym match rows between two recordings",
                    report::field_name(f));
    }
  }
  return layout;
}

using RowKey = std::tuple<std::string, uint32_t, std::string, std::string, bool>;

// One side's rows of one event, added into `rows` by key.
void add_side(const Profile& p, const report::EventHists& h, const report::FieldLayout& layout, bool is_base,
              const ObjectKeys& keys, std::map<RowKey, DiffRow>& rows) {
  for (const auto& e : h.entries) {
    DiffRow r;
    if (layout.has(Field::kComm)) r.comm = p.str(e.comm);
    if (layout.has(Field::kPid) || layout.has(Field::kTid)) r.tid = e.tid;
    if (layout.has(Field::kDso)) {
      const std::string name = report::object_name(p, e.location, false);
      const auto& loc = p.locations[e.location];
      std::string_view build_id = loc.mapping == UINT32_MAX ? "" : p.str(p.mappings[loc.mapping].build_id);
      r.dso = is_base ? std::string(file_name(name)) : std::string(keys.new_key(name, build_id));
    }
    if (layout.has(Field::kSym)) r.sym = report::symbol_name(p, e), r.kernel = e.kernel;
    auto [it, fresh] = rows.try_emplace(RowKey{r.comm, r.tid, r.dso, r.sym, r.kernel}, std::move(r));
    DiffRow& row = it->second;
    (is_base ? row.in_base : row.in_new) = true;
    (is_base ? row.base_period : row.new_period) += e.self_period;
  }
}

double share(uint64_t v, uint64_t total) { return total ? 100.0 * double(v) / double(total) : 0.0; }

void sort_rows(std::vector<DiffRow>& rows, Compute c) {
  auto value = [c](const DiffRow& r) {
    switch (c) {
      case Compute::kDeltaAbs: return std::fabs(r.delta());
      case Compute::kDelta: return r.delta();
      case Compute::kRatio: return r.ratio().value_or(-1.0);
    }
    return 0.0;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    const double va = value(a), vb = value(b);
    if (va != vb) return va > vb;
    if (a.new_pct != b.new_pct) return a.new_pct > b.new_pct;
    return a.base_pct > b.base_pct;
  });
}

EventDiff diff_event(const Profile& base, const report::EventHists& bh, const Profile& now,
                     const report::EventHists& nh, const report::FieldLayout& layout, const ObjectKeys& keys,
                     const DiffOptions& o) {
  EventDiff d;
  d.event = base.events[bh.event].name;
  d.base_samples = bh.samples, d.new_samples = nh.samples;
  d.base_period = bh.period, d.new_period = nh.period;
  std::map<RowKey, DiffRow> rows;
  add_side(base, bh, layout, true, keys, rows);
  add_side(now, nh, layout, false, keys, rows);
  for (auto& [key, r] : rows) {
    r.base_pct = share(r.base_period, d.base_period);
    r.new_pct = share(r.new_period, d.new_period);
    if (std::max(r.base_pct, r.new_pct) >= o.percent_limit) d.rows.push_back(std::move(r));
  }
  sort_rows(d.rows, o.compute);
  return d;
}

}  // namespace

std::vector<EventDiff> compute_diff(const Profile& base, const Profile& now, const DiffOptions& o) {
  report::HistOptions ho;
  std::vector<DiffKey> keys_shown;
  ho.layout = diff_layout(o.sort, keys_shown);
  ho.children = false;
  const auto base_hists = report::build_hists(base, ho);
  const auto new_hists = report::build_hists(now, ho);
  const ObjectKeys keys(base, now);
  std::vector<EventDiff> out;
  for (const auto& bh : base_hists)
    for (const auto& nh : new_hists)
      if (base.events[bh.event].name == now.events[nh.event].name)
        out.push_back(diff_event(base, bh, now, nh, ho.layout, keys, o)), out.back().keys = keys_shown;
  if (out.empty()) {
    auto names = [](const Profile& p) {
      std::string s;
      for (const auto& e : p.events) { s += s.empty() ? "" : ", "; s += e.name; }
      return s.empty() ? std::string("none") : s;
    };
    throw_runtime("diff: the recordings have no event in common (BASE: {}; NEW: {})", names(base), names(now));
  }
  return out;
}

std::string compute_column(Compute c) {
  switch (c) {
    case Compute::kDeltaAbs: return "Delta Abs";
    case Compute::kDelta: return "Delta";
    case Compute::kRatio: return "Ratio";
  }
  return "";
}

// perf's cells: "%6.2f%%" for shares, "%+4.2f%%" for deltas, "%14.6f" for
// ratios; empty where a side has no row (perf leaves the delta of a row
// only BASE has empty too; sonde shows what it lost).
std::string value_cell(const DiffRow& r, Compute c) {
  if (c == Compute::kRatio) {
    auto ratio = r.ratio();
    return ratio && r.in_new ? fmt::format("{:.6f}", *ratio) : "";
  }
  return fmt::format("{:+.2f}%", r.delta());
}

}  // namespace sonde::diff
