#include "report/report_rows.h"

#include <algorithm>

#include "report/perf_rbtree.h"

namespace sonde::report {

using analysis::Profile;

std::vector<Field> elided_fields(const ReportOptions& o) {
  std::vector<Field> out;
  if (o.comms.size() == 1) out.push_back(Field::kComm);
  if (o.dsos.size() == 1) out.push_back(Field::kDso);
  if (o.symbols && o.symbols->size() == 1) out.push_back(Field::kSym);
  // perf's sort__setup_elide: eliding every key column makes no sense, so
  // then none is (the "# comm: X" lines stay).
  const bool key_left = std::any_of(o.layout.columns.begin(), o.layout.columns.end(), [&](Field f) {
    return is_key(f) && std::find(out.begin(), out.end(), f) == out.end();
  });
  if (!key_left) out.clear();
  return out;
}

HistOptions hist_options(const ReportOptions& o) {
  HistOptions ho;
  ho.layout = o.layout;
  ho.children = o.children;
  ho.call_graph = o.call_graph && !o.json;
  ho.order = o.graph.order;
  ho.key = o.graph.key;
  ho.parent = o.parent;
  ho.ignore_callees = o.ignore_callees;
  ho.comms = o.comms, ho.dsos = o.dsos, ho.pids = o.pids, ho.tids = o.tids;
  ho.symbols = o.symbols;
  return ho;
}

std::string_view symbol_name(const Profile& p, const HistEntry& e) {
  return e.function == UINT32_MAX ? std::string_view("[unknown]") : p.str(p.functions[e.function].name);
}

bool symbol_resolved(const Profile& p, const HistEntry& e) {
  return e.function != UINT32_MAX && p.functions[e.function].resolved;
}

namespace {

// >0: a before b; <0: b before a; 0: this field does not tell.
template <typename T>
int ascending(const T& a, const T& b) {
  return a < b ? 1 : (b < a ? -1 : 0);
}
int descending(uint64_t a, uint64_t b) { return ascending(b, a); }

// perf's cmp_null: a row without the thing goes after one with it.
int nulls_last(bool a_has, bool b_has) { return a_has == b_has ? 0 : (a_has ? 1 : -1); }

// The text keys of a hist's rows as ranks in string order (equal texts,
// equal ranks), made once: the trees below then compare rows by integers,
// n log n times, instead of comparing (and building) their texts.
struct RowRanks {
  std::vector<uint32_t> comm, dso, sym, parent, srcline;
  std::vector<uint8_t> has_dso, resolved;
  // The symbol's start in its object, or the address without a symbol
  // (perf's collapse key), and each row's Children and Self: the trees'
  // first questions, answered from arrays rather than from the rows.
  std::vector<uint64_t> position;
  std::vector<std::pair<uint64_t, uint64_t>> periods;  // Children, Self
};

template <typename Text>
std::vector<uint32_t> rank_texts(size_t n, Text text) {
  std::vector<std::string_view> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = text(i);
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t[a] < t[b]; });
  std::vector<uint32_t> rank(n);
  uint32_t r = 0;
  for (size_t k = 0; k < n; ++k) {
    if (k && t[order[k]] != t[order[k - 1]]) ++r;
    rank[order[k]] = r;
  }
  return rank;
}

bool sorts_by(const ReportOptions& o, Field f) {
  return std::find(o.layout.sort.begin(), o.layout.sort.end(), f) != o.layout.sort.end();
}

RowRanks rank_rows(const Profile& p, const std::vector<HistEntry>& rows, const ReportOptions& o) {
  RowRanks r;
  const size_t n = rows.size();
  r.has_dso.resize(n), r.resolved.resize(n), r.position.resize(n), r.periods.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& loc = p.locations[rows[i].location];
    r.has_dso[i] = loc.mapping != UINT32_MAX || loc.kernel;
    r.resolved[i] = symbol_resolved(p, rows[i]);
    const uint64_t where = loc.mapping != UINT32_MAX && !loc.kernel ? loc.file_offset : loc.address;
    r.position[i] = r.resolved[i] ? where - loc.symbol_offset : where;
    r.periods[i] = {rows[i].acc_period, rows[i].self_period};
  }
  if (sorts_by(o, Field::kComm)) r.comm = rank_texts(n, [&](size_t i) { return p.str(rows[i].comm); });
  if (sorts_by(o, Field::kDso) || sorts_by(o, Field::kSym)) {
    const ObjectNames names(p, o.verbose);
    r.dso = rank_texts(n, [&](size_t i) { return names(rows[i].location); });
  }
  if (sorts_by(o, Field::kSym)) r.sym = rank_texts(n, [&](size_t i) { return symbol_name(p, rows[i]); });
  if (sorts_by(o, Field::kSrcline))
    r.srcline = rank_texts(n, [&](size_t i) { return std::string_view(rows[i].srcline); });
  if (sorts_by(o, Field::kParent))
    r.parent = rank_texts(n, [&](size_t i) {
      return rows[i].parent == UINT32_MAX ? std::string_view() : p.str(p.functions[rows[i].parent].name);
    });
  return r;
}

// The sort list's fields that order the output (elided columns do not).
std::vector<Field> output_fields(const ReportOptions& o, const std::vector<Field>& elided) {
  std::vector<Field> out;
  for (Field f : o.layout.sort)
    if (std::find(elided.begin(), elided.end(), f) == elided.end()) out.push_back(f);
  return out;
}

class RowOrder {
 public:
  RowOrder(const std::vector<HistEntry>& rows, const RowRanks& ranks, const ReportOptions& o,
           std::vector<Field> fields)
      : rows_(rows), r_(ranks), o_(o), fields_(std::move(fields)) {}

  bool operator()(uint32_t a, uint32_t b) const {
    for (Field f : fields_)
      if (int c = compare(f, a, b)) return c > 0;
    return false;
  }

 private:
  int compare(Field f, uint32_t ai, uint32_t bi) const {
    const HistEntry& a = rows_[ai];
    const HistEntry& b = rows_[bi];
    switch (f) {
      case Field::kChildren:
        if (int c = descending(r_.periods[ai].first, r_.periods[bi].first)) return c;
        return children_depth(a, b);
      case Field::kOverhead: return descending(r_.periods[ai].second, r_.periods[bi].second);
      case Field::kOverheadSys: return descending(a.sys_period, b.sys_period);
      case Field::kOverheadUs: return descending(a.us_period, b.us_period);
      case Field::kSample: return descending(a.self_samples, b.self_samples);
      case Field::kPeriod: return descending(a.self_period, b.self_period);
      case Field::kComm: return ascending(r_.comm[ai], r_.comm[bi]);
      case Field::kPid:
      case Field::kTid: return ascending(int32_t(a.tid), int32_t(b.tid));
      case Field::kDso:
        if (int c = nulls_last(r_.has_dso[ai], r_.has_dso[bi]); c || !r_.has_dso[ai]) return c;
        return ascending(r_.dso[ai], r_.dso[bi]);
      case Field::kSym:
        if (int c = nulls_last(r_.resolved[ai], r_.resolved[bi])) return c;
        return ascending(r_.sym[ai], r_.sym[bi]);
      case Field::kSrcline: return ascending(r_.srcline[ai], r_.srcline[bi]);
      case Field::kParent:
        if (int c = nulls_last(a.parent != UINT32_MAX, b.parent != UINT32_MAX); c || a.parent == UINT32_MAX) return c;
        return ascending(r_.parent[ai], r_.parent[bi]);
      case Field::kCpu: return ascending(a.cpu, b.cpu);
      case Field::kSocket: return ascending(a.socket, b.socket);
      case Field::kCore: return ascending(a.core, b.core);
    }
    return 0;
  }

  // perf: with call graphs, of two rows of one thread with equal Children
  // the one whose chains are shorter (callee order; longer, caller order)
  // is the caller and goes first.
  int children_depth(const HistEntry& a, const HistEntry& b) const {
    if (!o_.call_graph || a.pid != b.pid || a.tid != b.tid || !a.chains || !b.chains) return 0;
    int c = ascending(a.chains->max_depth(), b.chains->max_depth());
    return o_.graph.order == GraphOrder::kCaller ? -c : c;
  }

  const std::vector<HistEntry>& rows_;
  const RowRanks& r_;
  const ReportOptions& o_;
  const std::vector<Field> fields_;
};

// perf's collapse comparison of two rows (hist_entry__collapse(left,
// right) over the sort keys, util/sort.c): its sign places a new row in
// the tree that then feeds the output tree. Addresses compare by their
// signed difference, as perf's do; texts by their ranks, as strcmp would.
class CollapseOrder {
 public:
  CollapseOrder(const std::vector<HistEntry>& rows, const RowRanks& ranks, const ReportOptions& o)
      : rows_(rows), r_(ranks) {
    for (Field f : o.layout.sort)
      if (is_key(f)) fields_.push_back(f);
  }

  int64_t operator()(uint32_t left, uint32_t right) const {
    for (Field f : fields_)
      if (int64_t c = compare(f, left, right)) return c;
    return 0;
  }

 private:
  static int64_t sign(uint32_t a, uint32_t b) { return a < b ? -1 : (b < a ? 1 : 0); }
  static int64_t cmp_null(bool left_null, bool right_null) {
    if (left_null && right_null) return 0;
    return left_null ? -1 : 1;
  }
  int64_t compare(Field f, uint32_t li, uint32_t ri) const {
    const HistEntry& l = rows_[li];
    const HistEntry& r = rows_[ri];
    switch (f) {
      case Field::kComm: return sign(r_.comm[ri], r_.comm[li]);
      case Field::kPid:
      case Field::kTid: return int64_t(int32_t(r.tid)) - int64_t(int32_t(l.tid));
      case Field::kDso: return dso(li, ri);
      case Field::kSym: {
        const bool rl = r_.resolved[li], rr = r_.resolved[ri];
        if (!rl && !rr) return static_cast<int64_t>(r_.position[ri] - r_.position[li]);
        if (int64_t c = dso(li, ri)) return c;
        if (!rl || !rr) return cmp_null(!rl, !rr);
        return static_cast<int64_t>(r_.position[ri] - r_.position[li]);
      }
      case Field::kSrcline: return sign(r_.srcline[ri], r_.srcline[li]);
      case Field::kParent:
        if (l.parent == UINT32_MAX || r.parent == UINT32_MAX) return cmp_null(l.parent == UINT32_MAX, r.parent == UINT32_MAX);
        return sign(r_.parent[ri], r_.parent[li]);
      case Field::kCpu: return int64_t(r.cpu) - int64_t(l.cpu);
      case Field::kSocket: return int64_t(r.socket) - int64_t(l.socket);
      case Field::kCore: return int64_t(r.core) - int64_t(l.core);
      default: return 0;
    }
  }
  int64_t dso(uint32_t li, uint32_t ri) const {
    if (!r_.has_dso[li] || !r_.has_dso[ri]) return cmp_null(!r_.has_dso[li], !r_.has_dso[ri]);
    return sign(r_.dso[ri], r_.dso[li]);
  }
  const std::vector<HistEntry>& rows_;
  const RowRanks& r_;
  std::vector<Field> fields_;
};

bool hidden_by_symbol_filter(const Profile& p, const HistEntry& e, const std::string& filter) {
  if (filter.empty()) return false;
  return !symbol_resolved(p, e) || symbol_name(p, e).find(filter) == std::string_view::npos;
}

}  // namespace

std::vector<RowSet> arrange_rows(const Profile& p, const std::vector<EventHists>& hists, const ReportOptions& o) {
  const std::vector<Field> elided = elided_fields(o);
  std::vector<RowSet> out;
  for (const EventHists& h : hists) {
    if (h.samples == 0) continue;
    RowSet& rs = out.emplace_back();
    rs.hists = &h;
    // Rows in the order they were made, through perf's collapse tree, then
    // its output tree.
    const std::vector<HistEntry>& all = h.entries;
    std::vector<uint32_t> order(all.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const RowRanks ranks = rank_rows(p, all, o);
    const CollapseOrder collapse(all, ranks, o);
    order = rbtree_order(order, [&](uint32_t fresh, uint32_t node) { return collapse(node, fresh) < 0; });
    const RowOrder before(all, ranks, o, output_fields(o, elided));
    order = rbtree_order(order, before);
    for (const HistEntry& e : h.entries)
      if (!e.filtered && !hidden_by_symbol_filter(p, e, o.symbol_filter)) rs.visible.push_back(&e);
    for (uint32_t i : order) {
      const HistEntry* e = &all[i];
      if (e->filtered || hidden_by_symbol_filter(p, *e, o.symbol_filter)) continue;
      const uint64_t period = o.children ? e->acc_period : e->self_period;
      if (h.period && 100.0 * double(period) / double(h.period) < o.percent_limit) continue;
      rs.shown.push_back(e);
      if (o.max_entries && rs.shown.size() >= o.max_entries) break;
    }
  }
  // perf lists the events in the recording's order.
  std::stable_sort(out.begin(), out.end(), [&](const RowSet& a, const RowSet& b) {
    return p.events[a.hists->event].attr_index < p.events[b.hists->event].attr_index;
  });
  return out;
}

}  // namespace sonde::report
