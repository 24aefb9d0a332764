#include "hierarchy/hierarchy_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/hist.h"

namespace sonde::hierarchy {

namespace {

// One level's entries: name -> (period, the level below).
struct Node {
  uint64_t period = 0;
  std::map<std::string, Node> children;
};

// perf's convert_unit: "3 " below a thousand, else "3K", "12M"...
std::string samples_text(uint64_t n) {
  char unit = ' ';
  for (const char* u = "KMG"; n > 1000 && *u; ++u) n /= 1000, unit = *u;
  return fmt::format("{}{}", n, unit);
}

// Children by period (largest first), then by name; each line indented by
// three more columns per level, names padded to the level's widest.
void write_level(const Node& n, int level, uint64_t total, std::string& out) {
  std::vector<std::pair<const std::string*, const Node*>> order;
  size_t width = level == 0 ? 7 : 0;  // "Command"
  for (const auto& [name, child] : n.children) {
    if (child.period) order.emplace_back(&name, &child);
    width = std::max(width, name.size());
  }
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second->period > b.second->period; });
  for (const auto& [name, child] : order) {
    std::string pct = fmt::format("{:.2f}%", 100.0 * double(child->period) / double(total));
    if (level == 2) out += fmt::format("{:>{}}        {}\n", pct, 10 + 3 * level, *name);
    else out += fmt::format("{:>{}}        {:<{}}\n", pct, 10 + 3 * level, *name, width);
    write_level(*child, level + 1, total, out);
  }
}

// perf's header column is as wide as its title or as the widest name plus
// four columns of indentation per level.
size_t column_width(const Node& n, size_t level) {
  size_t w = 0;
  for (const auto& [name, child] : n.children)
    if (child.period) w = std::max({w, 4 * level + name.size(), column_width(child, level + 1)});
  return w;
}

}  // namespace

std::string format_hierarchy(const analysis::Profile& p) {
  report::HistOptions ho;
  ho.layout = report::layout_fields({std::nullopt, std::string("comm,dso,sym"), false, false});
  ho.children = false;
  std::string out = fmt::format(
      "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n"
      "# Total Lost Samples: {}\n#\n",
      p.lost_samples);
  for (const report::EventHists& h : report::build_hists(p, ho)) {
    Node root;
    for (const report::HistEntry& e : h.entries) {
      if (e.filtered || e.function == UINT32_MAX) continue;
      Node& comm = root.children[std::string(p.str(e.comm))];
      Node& dso = comm.children[report::object_name(p, e.location, false)];
      Node& sym = dso.children[fmt::format("[{}] {}", e.kernel ? 'k' : '.', p.str(p.functions[e.function].name))];
      comm.period += e.self_period, dso.period += e.self_period, sym.period += e.self_period;
    }
    out += fmt::format("# Samples: {} of event '{}'\n# Event count (approx.): {}\n#\n", samples_text(h.samples),
                       p.events[h.event].name, h.period);
    std::string title = "Command / Shared Object / Symbol";
    out += fmt::format("#       Overhead  {}\n# ..............  {}\n#\n", title,
                       std::string(std::max(title.size(), column_width(root, 0)), '.'));
    if (h.period) write_level(root, 0, h.period, out);
    out += "\n\n";
  }
  return out;
}

}  // namespace sonde::hierarchy
