#include "report/report_rows.h"

#include <algorithm>

#include "report/perf_rbtree.h"

namespace sonde::report {

using analysis::Profile;

std::vector<Field> elided_fields(const ReportOptions& o) {
  std::vector<Field> out;
  if (o.comms.size() == 1) out.push_back(Field::kComm);
  if (o.dsos.size() == 1) out.push_back(Field::kDso);
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

class RowOrder {
 public:
  RowOrder(const Profile& p, const ReportOptions& o, const std::vector<Field>& elided) : p_(p), o_(o), elided_(elided) {}

  bool operator()(const HistEntry* a, const HistEntry* b) const {
    for (Field f : o_.layout.sort) {
      if (std::find(elided_.begin(), elided_.end(), f) != elided_.end()) continue;
      if (int c = compare(f, *a, *b)) return c > 0;
    }
    return false;
  }

 private:
  int compare(Field f, const HistEntry& a, const HistEntry& b) const {
    switch (f) {
      case Field::kChildren: return children(a, b);
      case Field::kOverhead: return descending(a.self_period, b.self_period);
      case Field::kOverheadSys: return descending(a.sys_period, b.sys_period);
      case Field::kOverheadUs: return descending(a.us_period, b.us_period);
      case Field::kSample: return descending(a.self_samples, b.self_samples);
      case Field::kPeriod: return descending(a.self_period, b.self_period);
      case Field::kComm: return ascending(p_.str(a.comm), p_.str(b.comm));
      case Field::kPid:
      case Field::kTid: return ascending(int32_t(a.tid), int32_t(b.tid));
      case Field::kDso: return dso(a, b);
      case Field::kSym: return symbol(a, b);
      case Field::kSrcline: return ascending(a.srcline, b.srcline);
      case Field::kParent:
        if (int c = nulls_last(a.parent != UINT32_MAX, b.parent != UINT32_MAX); c || a.parent == UINT32_MAX) return c;
        return ascending(p_.str(p_.functions[a.parent].name), p_.str(p_.functions[b.parent].name));
      case Field::kCpu: return ascending(a.cpu, b.cpu);
      case Field::kSocket: return ascending(a.socket, b.socket);
      case Field::kCore: return ascending(a.core, b.core);
    }
    return 0;
  }

  // perf: with call graphs, of two rows of one thread with equal Children
  // the one whose chains are shorter (callee order; longer, caller order)
  // is the caller and goes first.
  int children(const HistEntry& a, const HistEntry& b) const {
    if (int c = descending(a.acc_period, b.acc_period)) return c;
    if (!o_.call_graph || a.pid != b.pid || a.tid != b.tid || !a.chains || !b.chains) return 0;
    int c = ascending(a.chains->max_depth(), b.chains->max_depth());
    return o_.graph.order == GraphOrder::kCaller ? -c : c;
  }

  int dso(const HistEntry& a, const HistEntry& b) const {
    const bool a_has = p_.locations[a.location].mapping != UINT32_MAX || p_.locations[a.location].kernel;
    const bool b_has = p_.locations[b.location].mapping != UINT32_MAX || p_.locations[b.location].kernel;
    if (int c = nulls_last(a_has, b_has); c || !a_has) return c;
    return ascending(object_name(p_, a.location, o_.verbose), object_name(p_, b.location, o_.verbose));
  }

  int symbol(const HistEntry& a, const HistEntry& b) const {
    if (int c = nulls_last(symbol_resolved(p_, a), symbol_resolved(p_, b))) return c;
    return ascending(symbol_name(p_, a), symbol_name(p_, b));
  }

  const Profile& p_;
  const ReportOptions& o_;
  const std::vector<Field>& elided_;
};

// perf's collapse comparison of two rows (hist_entry__collapse(left,
// right) over the sort keys, util/sort.c): its sign places a new row in
// the tree that then feeds the output tree. Addresses compare by their
// signed difference, as perf's do.
class CollapseOrder {
 public:
  CollapseOrder(const Profile& p, const ReportOptions& o) : p_(p), o_(o) {}

  int64_t operator()(const HistEntry& left, const HistEntry& right) const {
    for (Field f : o_.layout.sort) {
      if (!is_key(f)) continue;
      if (int64_t c = compare(f, left, right)) return c;
    }
    return 0;
  }

 private:
  static int64_t strcmp_sign(std::string_view a, std::string_view b) { return a < b ? -1 : (b < a ? 1 : 0); }
  static int64_t cmp_null(bool left_null, bool right_null) {
    if (left_null && right_null) return 0;
    return left_null ? -1 : 1;
  }
  int64_t compare(Field f, const HistEntry& l, const HistEntry& r) const {
    switch (f) {
      case Field::kComm: return strcmp_sign(p_.str(r.comm), p_.str(l.comm));
      case Field::kPid:
      case Field::kTid: return int64_t(int32_t(r.tid)) - int64_t(int32_t(l.tid));
      case Field::kDso: return dso(l, r);
      case Field::kSym: {
        const bool rl = symbol_resolved(p_, l), rr = symbol_resolved(p_, r);
        if (!rl && !rr) return static_cast<int64_t>(position(r, false) - position(l, false));
        if (int64_t c = dso(l, r)) return c;
        if (!rl || !rr) return cmp_null(!rl, !rr);
        return static_cast<int64_t>(position(r, true) - position(l, true));
      }
      case Field::kSrcline: return strcmp_sign(r.srcline, l.srcline);
      case Field::kParent:
        if (l.parent == UINT32_MAX || r.parent == UINT32_MAX) return cmp_null(l.parent == UINT32_MAX, r.parent == UINT32_MAX);
        return strcmp_sign(p_.str(p_.functions[r.parent].name), p_.str(p_.functions[l.parent].name));
      case Field::kCpu: return int64_t(r.cpu) - int64_t(l.cpu);
      case Field::kSocket: return int64_t(r.socket) - int64_t(l.socket);
      case Field::kCore: return int64_t(r.core) - int64_t(l.core);
      default: return 0;
    }
  }
  bool has_object(const HistEntry& e) const {
    return p_.locations[e.location].mapping != UINT32_MAX || p_.locations[e.location].kernel;
  }
  int64_t dso(const HistEntry& l, const HistEntry& r) const {
    if (!has_object(l) || !has_object(r)) return cmp_null(!has_object(l), !has_object(r));
    return strcmp_sign(object_name(p_, r.location, o_.verbose), object_name(p_, l.location, o_.verbose));
  }
  // The symbol's start in its object, or the address without a symbol.
  uint64_t position(const HistEntry& e, bool resolved) const {
    const auto& loc = p_.locations[e.location];
    const uint64_t where = loc.mapping != UINT32_MAX && !loc.kernel ? loc.file_offset : loc.address;
    return resolved ? where - loc.symbol_offset : where;
  }
  const Profile& p_;
  const ReportOptions& o_;
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
    std::vector<const HistEntry*> all;
    for (const HistEntry& e : h.entries) all.push_back(&e);
    std::vector<uint32_t> order(all.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const CollapseOrder collapse(p, o);
    order = rbtree_order(order, [&](uint32_t fresh, uint32_t node) { return collapse(*all[node], *all[fresh]) < 0; });
    const RowOrder before(p, o, elided);
    order = rbtree_order(order, [&](uint32_t a, uint32_t b) { return before(all[a], all[b]); });
    for (const HistEntry& e : h.entries)
      if (!e.filtered && !hidden_by_symbol_filter(p, e, o.symbol_filter)) rs.visible.push_back(&e);
    for (uint32_t i : order) {
      const HistEntry* e = all[i];
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
