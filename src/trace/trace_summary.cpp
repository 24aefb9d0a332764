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

}  // namespace

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
