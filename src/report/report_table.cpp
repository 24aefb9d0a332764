#include "report/report_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "util/error.h"

namespace sonde::report {

std::vector<SortKey> parse_sort_keys(const std::string& spec) {
  std::vector<SortKey> keys;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string k = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (k == "comm") keys.push_back(SortKey::kComm);
    else if (k == "pid") keys.push_back(SortKey::kPid);
    else if (k == "tid") keys.push_back(SortKey::kTid);
    else if (k == "dso") keys.push_back(SortKey::kDso);
    else if (k == "sym" || k == "symbol") keys.push_back(SortKey::kSym);
    else if (k == "srcline") keys.push_back(SortKey::kSrcline);
    else throw_usage("unknown sort key '{}' (keys: comm, pid, tid, dso, sym, srcline)", k);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (keys.empty()) throw_usage("--sort needs at least one key");
  return keys;
}

namespace {

std::string_view basename(std::string_view p) {
  if (p.starts_with("[")) return p.substr(0, p.find(']') + 1);
  auto s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

// The identity of a table row: only the fields of the chosen sort keys are set.
struct RowKey {
  uint32_t comm = 0, pid = 0, tid = 0, dso = 0, sym = 0, srcline = 0;
  bool operator==(const RowKey&) const = default;
};
struct RowKeyHash {
  size_t operator()(const RowKey& k) const {
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t v : {k.comm, k.pid, k.tid, k.dso, k.sym, k.srcline}) h = (h ^ v) * 1099511628211ULL;
    return static_cast<size_t>(h);
  }
};

struct Row {
  RowKey key;
  uint32_t location = 0;  // a representative location (for names)
  uint32_t pid = 0, tid = 0;  // the thread of the first sample here
  uint64_t self_period = 0, children_period = 0, self_samples = 0, children_samples = 0;
};

class Aggregator {
 public:
  Aggregator(const analysis::Profile& p, const ReportOptions& o) : p_(p), o_(o) {
    for (auto k : o.sort) {
      use_comm_ |= k == SortKey::kComm, use_pid_ |= k == SortKey::kPid, use_tid_ |= k == SortKey::kTid;
      use_dso_ |= k == SortKey::kDso, use_sym_ |= k == SortKey::kSym, use_src_ |= k == SortKey::kSrcline;
    }
  }

  RowKey key(const analysis::ProfileSample& s, uint32_t loc_id) {
    RowKey k;
    const analysis::ProfileLocation* loc = loc_id == UINT32_MAX ? nullptr : &p_.locations[loc_id];
    if (use_comm_) k.comm = s.comm;
    if (use_pid_) k.pid = s.pid;
    if (use_tid_) k.tid = s.tid;
    if (use_dso_) k.dso = dso_id(loc) + 1;
    if (use_sym_) k.sym = loc ? loc->function + 1 : 0;
    if (use_src_) k.srcline = srcline_id(loc) + 1;
    return k;
  }

  uint32_t dso_id(const analysis::ProfileLocation* loc) {
    if (!loc || loc->mapping == UINT32_MAX) return loc && loc->kernel ? 1u << 30 : (1u << 30) + 1;
    return p_.mappings[loc->mapping].path;
  }

  uint32_t srcline_id(const analysis::ProfileLocation* loc) {
    if (!loc || loc->lines.empty()) return 0;
    const auto& l = loc->lines.back();  // the outer function's line
    auto key = fmt::format("{}:{}", basename(p_.str(p_.functions[l.function].file)), l.line);
    auto it = srclines_.find(key);
    if (it != srclines_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(srcline_names_.size()) + 1;
    srcline_names_.push_back(key);
    srclines_.emplace(key, id);
    return id;
  }
  std::string srcline_name(uint32_t id) const { return id >= 1 && id <= srcline_names_.size() ? srcline_names_[id - 1] : "??:0"; }

  std::string dso_name(const analysis::ProfileLocation* loc) const {
    if (!loc || loc->mapping == UINT32_MAX) return loc && loc->kernel ? "[kernel.kallsyms]" : "[unknown]";
    return std::string(basename(p_.str(p_.mappings[loc->mapping].path)));
  }

  bool thread_selected(const analysis::ProfileSample& s) const {
    auto has = [](const std::vector<uint32_t>& v, uint32_t x) { return v.empty() || std::find(v.begin(), v.end(), x) != v.end(); };
    return has(o_.pids, s.pid) && has(o_.tids, s.tid);
  }

  bool dso_selected(const analysis::ProfileLocation* loc) const {
    if (o_.dsos.empty()) return true;
    std::string full = loc && loc->mapping != UINT32_MAX ? std::string(p_.str(p_.mappings[loc->mapping].path)) : "";
    std::string base = dso_name(loc);
    for (const auto& d : o_.dsos)
      if (d == full || d == base) return true;
    return false;
  }

 private:
  const analysis::Profile& p_;
  const ReportOptions& o_;
  bool use_comm_ = false, use_pid_ = false, use_tid_ = false, use_dso_ = false, use_sym_ = false, use_src_ = false;
  std::unordered_map<std::string, uint32_t> srclines_;
  std::vector<std::string> srcline_names_;
};

ReportEntry make_entry(const analysis::Profile& p, Aggregator& agg, const Row& r, uint64_t total) {
  ReportEntry e;
  const analysis::ProfileLocation* loc = r.location == UINT32_MAX ? nullptr : &p.locations[r.location];
  e.comm = std::string(p.str(r.key.comm));
  e.pid = r.key.pid, e.tid = r.key.tid;
  e.dso = agg.dso_name(loc);
  e.sym = loc ? std::string(p.str(p.functions[loc->function].name)) : "[unknown]";
  e.kernel = loc && loc->kernel;
  e.srcline = r.key.srcline ? agg.srcline_name(r.key.srcline - 1) : "";
  e.self_period = r.self_period, e.children_period = r.children_period;
  e.self_samples = r.self_samples, e.children_samples = r.children_samples;
  e.key = {r.key.comm, r.key.pid, r.key.tid, r.key.dso, r.key.sym, r.key.srcline};
  e.thread_pid = r.pid, e.thread_tid = r.tid;
  e.self_pct = total ? 100.0 * double(r.self_period) / double(total) : 0;
  e.children_pct = total ? 100.0 * double(r.children_period) / double(total) : 0;
  return e;
}

}  // namespace

namespace {
std::vector<EventReport> compute_with(const analysis::Profile& p, const ReportOptions& opts, Aggregator& agg) {
  std::vector<EventReport> out;
  std::vector<uint32_t> stack;
  std::vector<RowKey> seen;
  for (uint32_t ev = 0; ev < p.events.size(); ++ev) {
    std::unordered_map<RowKey, Row, RowKeyHash> rows;
    auto row = [&rows](const RowKey& k, uint32_t loc, const analysis::ProfileSample& s) -> Row& {
      auto [it, fresh] = rows.try_emplace(k);
      Row& r = it->second;
      if (fresh) r.pid = s.pid, r.tid = s.tid;
      r.key = k, r.location = loc;
      return r;
    };
    uint64_t total = 0, samples = 0;
    for (const auto& s : p.samples) {
      if (s.event != ev || !agg.thread_selected(s)) continue;
      p.stack_locations(s.stack, stack);
      uint32_t leaf = stack.empty() ? UINT32_MAX : stack.front();
      const analysis::ProfileLocation* leaf_loc = leaf == UINT32_MAX ? nullptr : &p.locations[leaf];
      if (!agg.dso_selected(leaf_loc) && !opts.children) continue;
      total += s.period;
      samples += s.count;
      if (agg.dso_selected(leaf_loc)) {
        Row& r = row(agg.key(s, leaf), leaf, s);
        r.self_period += s.period, r.self_samples += s.count;
        if (!opts.children) continue;
      }
      if (!opts.children) continue;
      seen.clear();
      for (uint32_t loc : stack) {
        if (!agg.dso_selected(&p.locations[loc])) continue;
        RowKey k = agg.key(s, loc);
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;  // recursion counts once
        seen.push_back(k);
        Row& r = row(k, loc, s);
        r.children_period += s.period, r.children_samples += s.count;
      }
      if (stack.empty()) {
        Row& r = row(agg.key(s, UINT32_MAX), UINT32_MAX, s);
        r.children_period += s.period, r.children_samples += s.count;
      }
    }
    EventReport er;
    er.name = p.events[ev].name;
    er.samples = samples;
    er.period = total;
    std::vector<const Row*> sorted;
    for (const auto& [k, r] : rows) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [&](const Row* a, const Row* b) {
      uint64_t ka = opts.children ? a->children_period : a->self_period;
      uint64_t kb = opts.children ? b->children_period : b->self_period;
      if (ka != kb) return ka > kb;
      if (a->self_period != b->self_period) return a->self_period > b->self_period;
      return a->location < b->location;
    });
    for (const Row* r : sorted) {
      ReportEntry e = make_entry(p, agg, *r, total);
      double pct = opts.children ? e.children_pct : e.self_pct;
      if (pct < opts.percent_limit) continue;
      if (pct == 0 && e.self_pct == 0) continue;
      er.entries.push_back(std::move(e));
      if (opts.max_entries && er.entries.size() >= opts.max_entries) break;
    }
    out.push_back(std::move(er));
  }
  return out;
}
}  // namespace

std::vector<EventReport> compute_report(const analysis::Profile& p, const ReportOptions& opts) {
  Aggregator agg(p, opts);
  return compute_with(p, opts, agg);
}

}  // namespace sonde::report

namespace sonde::report {

namespace {

struct GraphNode {
  uint32_t function = 0;
  uint64_t period = 0;
  std::map<uint32_t, size_t> children;  // function -> node index
};

class CallGraph {
 public:
  explicit CallGraph(const analysis::Profile& p) : p_(p) { nodes_.push_back({}); }
  void add(const std::vector<uint32_t>& functions, uint64_t period) {
    size_t cur = 0;
    nodes_[0].period += period;
    for (uint32_t f : functions) {
      auto it = nodes_[cur].children.find(f);
      size_t next;
      if (it == nodes_[cur].children.end()) {
        next = nodes_.size();
        nodes_[cur].children.emplace(f, next);
        nodes_.push_back({f, 0, {}});
      } else {
        next = it->second;
      }
      nodes_[next].period += period;
      cur = next;
    }
  }
  void print(fmt::memory_buffer& buf, uint64_t total, double threshold) const {
    print_children(buf, 0, total, threshold, 12, true);
  }

 private:
  void print_children(fmt::memory_buffer& buf, size_t n, uint64_t total, double threshold, size_t indent,
                      bool first) const {
    std::vector<size_t> kids;
    for (const auto& [f, idx] : nodes_[n].children) kids.push_back(idx);
    std::sort(kids.begin(), kids.end(), [&](size_t a, size_t b) { return nodes_[a].period > nodes_[b].period; });
    for (size_t k : kids) {
      double pct = total ? 100.0 * double(nodes_[k].period) / double(total) : 0;
      if (pct < threshold) continue;
      // A chain without branches prints one frame per line at one indent.
      std::string_view name = p_.str(p_.functions[nodes_[k].function].name);
      bool single = kids.size() == 1 && !first;
      if (single)
        fmt::format_to(fmt::appender(buf), "{:{}}{}\n", "", indent + 9, name);
      else
        fmt::format_to(fmt::appender(buf), "{:{}}--{:.2f}%--{}\n", "", indent, pct, name);
      print_children(buf, k, total, threshold, single ? indent : indent + 4, false);
    }
  }
  const analysis::Profile& p_;
  std::vector<GraphNode> nodes_;
};

void write_graph(const analysis::Profile& p, const ReportOptions& o, const ReportEntry& e, uint32_t ev, uint64_t total,
                 Aggregator& agg, fmt::memory_buffer& buf) {
  CallGraph g(p);
  std::vector<uint32_t> stack, path;
  const RowKey want{e.key[0], e.key[1], e.key[2], e.key[3], e.key[4], e.key[5]};
  for (const auto& s : p.samples) {
    if (s.event != ev || !agg.thread_selected(s)) continue;
    p.stack_locations(s.stack, stack);
    size_t limit = o.children ? stack.size() : std::min<size_t>(stack.size(), 1);
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < limit; ++i)
      if (agg.key(s, stack[i]) == want) {
        at = i;
        break;
      }
    if (at == SIZE_MAX) continue;
    path.clear();
    // A location with inline frames (--inline) stands for several
    // functions: lines[] is innermost first, ending with the outer one.
    auto push = [&](const analysis::ProfileLocation& loc, bool outer_first) {
      if (loc.lines.size() < 2) return path.push_back(loc.function);
      if (outer_first)
        for (size_t k = loc.lines.size(); k-- > 0;) path.push_back(loc.lines[k].function);
      else
        for (const auto& l : loc.lines) path.push_back(l.function);
    };
    if (o.caller_order) {
      for (size_t i = stack.size(); i-- > at;) push(p.locations[stack[i]], true);
    } else {
      for (size_t i = at; i < stack.size(); ++i) push(p.locations[stack[i]], false);
    }
    g.add(path, s.period);
  }
  g.print(buf, total, o.graph_threshold);
  buf.push_back('\n');
}

}  // namespace

std::string format_call_graph(const analysis::Profile& p, const ReportOptions& opts, uint32_t event,
                              const EventReport& report, const ReportEntry& entry) {
  Aggregator agg(p, opts);
  fmt::memory_buffer buf;
  write_graph(p, opts, entry, event, report.period, agg, buf);
  return fmt::to_string(buf);
}

namespace {

std::string sort_header(SortKey k) {
  switch (k) {
    case SortKey::kComm: return "Command";
    case SortKey::kPid: return "Pid";
    case SortKey::kTid: return "Tid";
    case SortKey::kDso: return "Shared Object";
    case SortKey::kSym: return "Symbol";
    case SortKey::kSrcline: return "Source:Line";
  }
  return "";
}

std::string human(uint64_t n) {
  if (n >= 10000000) return fmt::format("{}M", n / 1000000);
  if (n >= 10000) return fmt::format("{}K", n / 1000);
  return fmt::format("{}", n);
}

void write_json(const analysis::Profile& p, const ReportOptions& o, const std::vector<EventReport>& reports, std::FILE* out) {
  nlohmann::ordered_json j;
  j["header"] = {{"hostname", p.hostname}, {"os_release", p.os_release}, {"arch", p.arch},
                 {"cmdline", p.cmdline},   {"lost_samples", p.lost_samples}, {"truncated_bytes", p.truncated_bytes}};
  auto& sort = j["sort"] = nlohmann::ordered_json::array();
  for (auto k : o.sort) {
    static const char* names[] = {"comm", "pid", "tid", "dso", "sym", "srcline"};
    sort.push_back(names[static_cast<int>(k)]);
  }
  j["children"] = o.children;
  auto& events = j["events"] = nlohmann::ordered_json::array();
  for (const auto& r : reports) {
    nlohmann::ordered_json ev{{"name", r.name}, {"samples", r.samples}, {"period", r.period}};
    auto& entries = ev["entries"] = nlohmann::ordered_json::array();
    for (const auto& e : r.entries) {
      nlohmann::ordered_json je;
      for (auto k : o.sort) {
        switch (k) {
          case SortKey::kComm: je["comm"] = e.comm; break;
          case SortKey::kPid: je["pid"] = e.pid; break;
          case SortKey::kTid: je["tid"] = e.tid; break;
          case SortKey::kDso: je["dso"] = e.dso; break;
          case SortKey::kSym: je["sym"] = e.sym, je["kernel"] = e.kernel; break;
          case SortKey::kSrcline: je["srcline"] = e.srcline; break;
        }
      }
      if (o.children) je["children"] = e.children_pct, je["children_period"] = e.children_period, je["children_samples"] = e.children_samples;
      je["self"] = e.self_pct;
      je["self_period"] = e.self_period;
      je["self_samples"] = e.self_samples;
      entries.push_back(std::move(je));
    }
    events.push_back(std::move(ev));
  }
  j["notes"] = p.notes;
  std::string text = j.dump(2);
  text += '\n';
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) throw_runtime("cannot write the report");
}

}  // namespace

TableLayout table_layout(const std::vector<ReportEntry>& entries) {
  TableLayout l;
  for (const auto& e : entries) l.comm = std::max(l.comm, e.comm.size()), l.dso = std::max(l.dso, e.dso.size());
  return l;
}

std::string table_header(const ReportOptions& o, const TableLayout& l) {
  std::string head = o.children ? "Children      Self" : "Overhead";
  if (o.show_samples) head += "       Samples";
  for (auto k : o.sort) {
    std::string h = sort_header(k);
    const bool id = k == SortKey::kPid || k == SortKey::kTid;
    size_t w = k == SortKey::kComm ? l.comm : k == SortKey::kDso ? l.dso : id ? 7 : 0;
    head += "  " + (id ? fmt::format("{:>{}}", h, w) : fmt::format("{:<{}}", h, w));
  }
  while (!head.empty() && head.back() == ' ') head.pop_back();
  return head;
}

void format_row(const ReportOptions& o, const ReportEntry& e, const TableLayout& l, fmt::memory_buffer& buf) {
  auto it = fmt::appender(buf);
  if (o.children)
    fmt::format_to(it, "{:>9.2f}% {:>8.2f}%", e.children_pct, e.self_pct);
  else
    fmt::format_to(it, "{:>9.2f}%", e.self_pct);
  if (o.show_samples) fmt::format_to(it, "  {:>12}", o.children ? e.children_samples : e.self_samples);
  for (auto k : o.sort) {
    switch (k) {
      case SortKey::kComm: fmt::format_to(it, "  {:<{}}", e.comm, l.comm); break;
      case SortKey::kPid: fmt::format_to(it, "  {:>7}", e.pid); break;
      case SortKey::kTid: fmt::format_to(it, "  {:>7}", e.tid); break;
      case SortKey::kDso: fmt::format_to(it, "  {:<{}}", e.dso, l.dso); break;
      case SortKey::kSym: fmt::format_to(it, "  [{}] {}", e.kernel ? 'k' : '.', e.sym); break;
      case SortKey::kSrcline: fmt::format_to(it, "  {}", e.srcline); break;
    }
  }
}

void write_report(const analysis::Profile& p, const ReportOptions& o, std::FILE* out) {
  Aggregator agg(p, o);
  auto reports = compute_with(p, o, agg);
  if (o.json) return write_json(p, o, reports, out);
  fmt::memory_buffer buf;
  auto it = fmt::appender(buf);
  if (!p.hostname.empty()) fmt::format_to(it, "# hostname : {}\n", p.hostname);
  if (!p.os_release.empty()) fmt::format_to(it, "# os release : {}\n", p.os_release);
  if (!p.arch.empty()) fmt::format_to(it, "# arch : {}\n", p.arch);
  if (!p.cmdline.empty()) fmt::format_to(it, "# cmdline : {}\n", p.cmdline);
  fmt::format_to(it, "#\n# Total Lost Samples: {}\n#\n", p.lost_samples);
  for (uint32_t ev = 0; ev < reports.size(); ++ev) {
    const auto& r = reports[ev];
    fmt::format_to(it, "# Samples: {} of event '{}'\n# Event count (approx.): {}\n#\n", human(r.samples), r.name, r.period);
    const TableLayout layout = table_layout(r.entries);
    fmt::format_to(it, "# {}\n#\n", table_header(o, layout));
    for (const auto& e : r.entries) {
      format_row(o, e, layout, buf);
      buf.push_back('\n');
      if (o.call_graph) write_graph(p, o, e, ev, r.period, agg, buf);
    }
    fmt::format_to(it, "\n");
  }
  for (const auto& n : p.notes) fmt::format_to(it, "# note: {}\n", n);
  if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size()) throw_runtime("cannot write the report");
}

}  // namespace sonde::report
