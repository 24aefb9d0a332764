#include "stat/stat_events.h"

#include "format/event_names.h"
#include "record/event_spec.h"
#include "util/error.h"

namespace sonde::stat {

namespace {

CounterEvent make_event(std::string name, uint32_t type, uint64_t config) {
  CounterEvent e;
  e.name = std::move(name);
  e.attr.type = type;
  e.attr.config = config;
  if (e.is_clock()) {
    e.unit = "msec";
    e.scale = 1e-6;
  }
  return e;
}

CounterEvent from_spec(const record::EventSpec& s) {
  CounterEvent e = make_event(s.name, s.type, s.config);
  e.attr.exclude_user = s.exclude_user;
  e.attr.exclude_kernel = s.exclude_kernel;
  if (s.tracepoint) e.attr.sample_period = 1;  // as perf's tracepoint defaults
  return e;
}

// Splits "a,{b,c}:u,d" at the commas outside braces.
std::vector<std::string> split_top_level(const std::string& arg) {
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : arg) {
    if (c == '{') ++depth;
    if (c == '}' && --depth < 0) throw_usage("unbalanced '}}' in event list '{}'", arg);
    if (c == ',' && depth == 0) {
      items.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur.push_back(c);
  }
  if (depth != 0) throw_usage("unbalanced '{{' in event list '{}'", arg);
  items.push_back(std::move(cur));
  return items;
}

// Appends the events one item names (a tracepoint glob may name many).
void add_item(const std::string& item, const std::string& mods, std::vector<CounterEvent>& out) {
  if (item.empty()) throw_usage("empty event name in an event list");
  if (item[0] == '%') {
    CounterEvent e;
    e.name = item;
    e.sdt_spec = item;
    out.push_back(std::move(e));
    return;
  }
  std::string text = mods.empty() ? item : item + ":" + mods;
  auto parsed = record::parse_events({text});
  for (const auto& s : parsed.events) out.push_back(from_spec(s));
}

void add_group(const std::string& item, std::vector<CounterEvent>& out) {
  size_t close = item.rfind('}');
  std::string mods;
  if (close + 1 < item.size()) {
    if (item[close + 1] != ':') throw_usage("unexpected '{}' after a group in '{}'", item.substr(close + 1), item);
    mods = item.substr(close + 2);
    // W (weak group: perf splits it when it cannot be scheduled whole) is
    // about the group, not its members; software counters always fit.
    std::erase(mods, 'W');
  }
  auto members = split_top_level(item.substr(1, close - 1));
  int leader = static_cast<int>(out.size());
  for (const auto& m : members) {
    if (!m.empty() && m[0] == '{') throw_usage("nested groups are not supported: '{}'", item);
    add_item(m, mods, out);
  }
  if (out.size() - leader > 1)
    for (size_t i = leader; i < out.size(); ++i) out[i].group_leader = leader;
}

// perf's --filter: it applies to the events of the last item of the -e
// before it (every tracepoint a glob matched), and only tracepoints take it.
void set_filter(const std::string& filter, const std::string& arg, size_t first, std::vector<CounterEvent>& out) {
  for (size_t i = first; i < out.size(); ++i) {
    if (out[i].attr.type != PERF_TYPE_TRACEPOINT)
      throw_usage("--filter '{}' follows '-e {}', and '{}' is not a tracepoint", filter, arg, out[i].name);
    out[i].filter = filter;
  }
}

}  // namespace

std::vector<CounterEvent> default_events(bool system_wide) {
  std::vector<CounterEvent> v;
  v.push_back(system_wide ? make_event("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK)
                          : make_event("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK));
  v.push_back(make_event("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES));
  v.push_back(make_event("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS));
  v.push_back(make_event("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS));
  v.push_back(make_event("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES));
  v.push_back(make_event("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS));
  v.push_back(make_event("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS));
  v.push_back(make_event("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES));
  return v;
}

std::vector<CounterEvent> parse_stat_events(const std::vector<std::string>& args,
                                            const std::vector<std::string>& filters) {
  std::vector<CounterEvent> out;
  for (size_t a = 0; a < args.size(); ++a) {
    size_t last_item_start = out.size();
    for (const auto& item : split_top_level(args[a])) {
      last_item_start = out.size();
      if (!item.empty() && item[0] == '{') add_group(item, out);
      else add_item(item, "", out);
    }
    if (a < filters.size() && !filters[a].empty()) set_filter(filters[a], args[a], last_item_start, out);
  }
  return out;
}

void prepare_counting_attrs(std::vector<CounterEvent>& events, bool enable_on_exec, bool no_inherit) {
  for (size_t i = 0; i < events.size(); ++i) {
    auto& e = events[i];
    auto& a = e.attr;
    // As perf: only a group's leader starts disabled; members follow it.
    bool leader = e.group_leader < 0 || static_cast<size_t>(e.group_leader) == i;
    a.size = sizeof(perf_event_attr);
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.disabled = leader ? 1 : 0;
    a.inherit = no_inherit ? 0 : 1;
    a.enable_on_exec = leader && enable_on_exec ? 1 : 0;
    a.exclude_guest = 1;
  }
}

}  // namespace sonde::stat
