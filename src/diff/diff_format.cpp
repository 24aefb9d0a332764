// perf diff's text layout and sonde's JSON for `sonde diff`.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "diff/diff_table.h"

namespace sonde::diff {

namespace {

struct Column {
  std::string name;
  size_t width;
};



void write_event(const EventDiff& d, const DiffOptions& o, fmt::memory_buffer& out) {
  const std::string value_name = compute_column(o.compute);
  const size_t value_width = o.compute == Compute::kRatio ? 14 : value_name.size();
  size_t comm_w = 7, dso_w = 13, sym_w = 6;
  for (const auto& r : d.rows) {
    comm_w = std::max(comm_w, r.comm.size());
    dso_w = std::max(dso_w, r.dso.size());
    sym_w = std::max(sym_w, r.sym.size() + 4);
  }
  std::vector<Column> keys;
  for (DiffKey k : d.keys) {
    switch (k) {
      case DiffKey::kComm: keys.push_back({"Command", comm_w}); break;
      case DiffKey::kPid: keys.push_back({"    Pid", 7}); break;
      case DiffKey::kDso: keys.push_back({"Shared Object", dso_w}); break;
      case DiffKey::kSym: keys.push_back({"Symbol", sym_w}); break;
    }
  }
  auto it = fmt::appender(out);
  fmt::format_to(it, "# Event '{}'\n#\n# {:>8}  {:>{}}", d.event, "Baseline", value_name, value_width);
  for (const auto& k : keys) fmt::format_to(it, "  {:<{}}", k.name, k.width);
  fmt::format_to(it, "\n# {}  {}", std::string(8, '.'), std::string(value_width, '.'));
  for (const auto& k : keys) fmt::format_to(it, "  {}", std::string(k.width, '.'));
  fmt::format_to(it, "\n#\n");
  for (const auto& r : d.rows) {
    std::string line = fmt::format("  {:>8}  {:>{}}", r.in_base ? fmt::format("{:.2f}%", r.base_pct) : "",
                                   value_cell(r, o.compute), value_width);
    for (DiffKey k : d.keys) {
      switch (k) {
        case DiffKey::kComm: line += fmt::format("  {:<{}}", r.comm, comm_w); break;
        case DiffKey::kPid: line += fmt::format("  {:>7}", r.tid); break;
        case DiffKey::kDso: line += fmt::format("  {:<{}}", r.dso, dso_w); break;
        case DiffKey::kSym: line += fmt::format("  [{}] {}", r.kernel ? 'k' : '.', r.sym); break;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::format_to(it, "{}\n", line);
  }
  fmt::format_to(it, "\n");
}

}  // namespace

std::string format_diff_text(const std::vector<EventDiff>& diffs, const DiffOptions& o) {
  fmt::memory_buffer out;
  for (const auto& d : diffs) write_event(d, o, out);
  return fmt::to_string(out);
}

std::string format_diff_json(const std::vector<EventDiff>& diffs, const DiffOptions& o) {
  nlohmann::ordered_json j;
  j["sort"] = o.sort;
  auto& events = j["events"] = nlohmann::ordered_json::array();
  for (const auto& d : diffs) {
    nlohmann::ordered_json ev{{"name", d.event},
                              {"base", {{"samples", d.base_samples}, {"period", d.base_period}}},
                              {"new", {{"samples", d.new_samples}, {"period", d.new_period}}}};
    auto& rows = ev["rows"] = nlohmann::ordered_json::array();
    for (const auto& r : d.rows) {
      nlohmann::ordered_json jr;
      for (DiffKey k : d.keys) {
        switch (k) {
          case DiffKey::kComm: jr["comm"] = r.comm; break;
          case DiffKey::kPid: jr["tid"] = r.tid; break;
          case DiffKey::kDso: jr["dso"] = r.dso; break;
          case DiffKey::kSym: jr["sym"] = r.sym, jr["kernel"] = r.kernel; break;
        }
      }
      jr["base"] = r.base_pct, jr["new"] = r.new_pct, jr["delta"] = r.delta();
      auto ratio = r.ratio();
      jr["ratio"] = ratio ? nlohmann::ordered_json(*ratio) : nlohmann::ordered_json(nullptr);
      jr["base_period"] = r.base_period, jr["new_period"] = r.new_period;
      rows.push_back(std::move(jr));
    }
    events.push_back(std::move(ev));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace sonde::diff
