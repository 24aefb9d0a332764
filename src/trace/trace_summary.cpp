#include "trace/trace_summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trace/syscall_table.h"

namespace sonde::trace {

namespace {

std::string thread_table(const ThreadStats& t) {
  std::string out =
      "\n   syscall            calls  errors  total       min       avg       max       stddev\n"
      "                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
      "   --------------- --------  ------ -------- --------- --------- ---------     ------\n";
  std::vector<std::pair<uint32_t, const CallStats*>> rows;
  for (const auto& [nr, s] : t.calls) rows.emplace_back(nr, &s);
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second->total_ns > b.second->total_ns; });
  for (const auto& [nr, s] : rows) {
    const double n = static_cast<double>(s->calls);
    const double stderr_mean = s->calls < 2 ? 0.0 : std::sqrt(s->m2 / (n - 1) / n);
    const double pct = s->mean != 0 ? 100.0 * stderr_mean / s->mean : 0.0;
    std::string_view name = syscall_name(nr);
    out += fmt::format("   {:<15} {:8} {:6} {:9.3f} {:9.3f} {:9.3f} {:9.3f} {:9.2f}%\n",
                       name.empty() ? fmt::format("{}", nr) : std::string(name), s->calls, s->errors,
                       static_cast<double>(s->total_ns) / 1e6, static_cast<double>(s->calls ? s->min_ns : 0) / 1e6,
                       s->mean / 1e6, static_cast<double>(s->max_ns) / 1e6, pct);
  }
  return out + "\n\n";
}

void merge_into(CallStats& into, const CallStats& c) {
  if (c.calls == 0) return;
  const double na = static_cast<double>(into.calls), nb = static_cast<double>(c.calls), n = na + nb;
  const double delta = c.mean - into.mean;
  into.m2 += c.m2 + delta * delta * na * nb / n;
  into.mean += delta * nb / n;
  into.calls += c.calls;
  into.errors += c.errors;
  into.total_ns += c.total_ns;
  into.min_ns = std::min(into.min_ns, c.min_ns);
  into.max_ns = std::max(into.max_ns, c.max_ns);
}

}  // namespace

ThreadStats total_of(const std::vector<const ThreadStats*>& threads) {
  ThreadStats total;
  for (const ThreadStats* t : threads) {
    total.events += t->events;
    for (const auto& [nr, c] : t->calls) merge_into(total.calls[nr], c);
  }
  return total;
}

std::string format_total_summary(const ThreadStats& total) {
  std::string out = fmt::format("\n Summary of events:\n\n total, {} events\n", total.events);
  if (!total.calls.empty()) out += thread_table(total);
  return out;
}

std::string format_cgroup_summary(std::vector<CgroupStats> cgroups) {
  auto time_in_calls = [](const ThreadStats* t) {
    uint64_t ns = 0;
    for (const auto& [nr, c] : t->calls) ns += c.total_ns;
    return ns;
  };
  std::stable_sort(cgroups.begin(), cgroups.end(),
                   [&](const auto& a, const auto& b) { return time_in_calls(a.stats) > time_in_calls(b.stats); });
  std::string out = "\n Summary of events:\n\n";
  for (const CgroupStats& g : cgroups) {
    out += fmt::format(" cgroup {}, {} events\n", g.path, g.stats->events);
    out += thread_table(*g.stats);
  }
  return out;
}

std::string format_summary(const std::vector<const ThreadStats*>& threads, uint64_t total_events,
                           const CommLookup& comm) {
  std::vector<const ThreadStats*> order(threads);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return a->events != b->events ? a->events < b->events : a->tid < b->tid;
  });
  std::string out = "\n Summary of events:\n\n";
  for (const ThreadStats* t : order) {
    if (t->events == 0) continue;
    const double ratio = total_events ? 100.0 * static_cast<double>(t->events) / static_cast<double>(total_events) : 0;
    out += fmt::format(" {} ({}), {} events, {:.1f}%\n", comm(t->tid), t->tid, t->events, ratio);
    if (!t->calls.empty()) out += thread_table(*t);
  }
  return out;
}

}  // namespace sonde::trace
