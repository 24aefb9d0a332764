#include "diff/multi_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace sonde::diff {

namespace {

using RowKey = std::tuple<std::string, uint32_t, std::string, std::string, bool>;
RowKey key_of(const DiffRow& r) { return {r.comm, r.tid, r.dso, r.sym, r.kernel}; }


// One event's table: `rows[k][i]` is row k in pair i (or null).
void write_event(const std::string& event, const std::vector<std::vector<const DiffRow*>>& rows, size_t files,
                 const std::vector<std::string>& paths, Compute c, std::string& out) {
  out += fmt::format("# Event '{}'\n#\n# Data files:\n", event);
  for (size_t i = 0; i < paths.size(); ++i) out += fmt::format("#  [{}] {} {}\n", i, paths[i], i ? "" : "(Baseline)");
  size_t dso_w = 13;
  for (const auto& r : rows)
    for (const DiffRow* p : r)
      if (p) dso_w = std::max(dso_w, p->dso.size());
  out += "#\n# Baseline/0";
  std::string dots = "# ..........";
  for (size_t i = 1; i < files; ++i) {
    std::string name = fmt::format("{}/{}", compute_column(c), i);
    out += "  " + name;
    dots += "  " + std::string(name.size(), '.');
  }
  out += fmt::format("  {:<{}}  Symbol\n{}  {}  ......\n#\n", "Shared Object", dso_w, dots, std::string(dso_w, '.'));
  for (const auto& r : rows) {
    const DiffRow* any = *std::find_if(r.begin(), r.end(), [](const DiffRow* p) { return p != nullptr; });
    const DiffRow* based = nullptr;
    for (const DiffRow* p : r)
      if (p && p->in_base) based = p;
    std::string line = fmt::format("  {:>10}", based ? fmt::format("{:.2f}%", based->base_pct) : "");
    for (size_t i = 0; i + 1 < files; ++i)
      line += fmt::format("  {:>{}}", r[i] ? value_cell(*r[i], c) : "", compute_column(c).size() + 2);
    line += fmt::format("  {:<{}}  [{}] {}", any->dso, dso_w, any->kernel ? 'k' : '.', any->sym);
    out += line + "\n";
  }
  out += "\n";
}

}  // namespace

std::string format_multi_diff_text(const std::vector<std::vector<EventDiff>>& pairs,
                                   const std::vector<std::string>& paths, const DiffOptions& o) {
  std::string out;
  if (pairs.empty()) return out;
  for (const EventDiff& first : pairs[0]) {
    std::map<RowKey, size_t> index;
    std::vector<std::vector<const DiffRow*>> rows;
    for (size_t i = 0; i < pairs.size(); ++i)
      for (const EventDiff& d : pairs[i]) {
        if (d.event != first.event) continue;
        for (const DiffRow& r : d.rows) {
          auto [it, added] = index.emplace(key_of(r), rows.size());
          if (added) rows.emplace_back(pairs.size(), nullptr);
          rows[it->second][i] = &r;
        }
      }
    write_event(first.event, rows, paths.size(), paths, o.compute, out);
  }
  return out;
}

}  // namespace sonde::diff
