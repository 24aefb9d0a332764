#include "report/wall_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "format/event_kind.h"
#include "util/error.h"

namespace sonde::report {

WallKind wall_kind(const analysis::ProfileEvent& e) {
  switch (e.kind) {
    case format::EventKind::kOffcpuBlocked: return WallKind::kBlocked;
    case format::EventKind::kOffcpuRunnable: return WallKind::kRunnable;
    case format::EventKind::kCpuTime: return WallKind::kOnCpu;  // cpu-clock, task-clock
    case format::EventKind::kSdtHit:
    case format::EventKind::kTracepoint:
    case format::EventKind::kCount: break;
  }
  return WallKind::kNone;
}

void WallTimes::add(WallKind k, uint64_t ns) {
  if (k == WallKind::kOnCpu) on_cpu += ns;
  if (k == WallKind::kBlocked) blocked += ns;
  if (k == WallKind::kRunnable) runnable += ns;
}

namespace {

struct ThreadAcc {
  WallThread thread;
  std::unordered_map<uint32_t, WallTimes> by_function;  // function id -> times
};

// Adds one aggregated sample to its thread: the whole, and each function of
// its stack once (recursion counts once, as perf's Children).
void add_sample(const analysis::Profile& p, const analysis::ProfileSample& s, WallKind kind, ThreadAcc& acc,
                std::vector<uint32_t>& locs, std::vector<uint32_t>& seen) {
  acc.thread.times.add(kind, s.period);
  p.stack_locations(s.stack, locs);
  seen.clear();
  for (uint32_t loc : locs) {
    uint32_t f = p.locations[loc].function;
    if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
    seen.push_back(f);
    acc.by_function[f].add(kind, s.period);
  }
}

}  // namespace

std::vector<WallThread> compute_wall(const analysis::Profile& p) {
  std::vector<WallKind> kinds;
  bool off_cpu = false;
  for (const auto& e : p.events) {
    kinds.push_back(wall_kind(e));
    off_cpu |= kinds.back() == WallKind::kBlocked || kinds.back() == WallKind::kRunnable;
  }
  if (!off_cpu)
    throw_runtime("--wall: the recording has no off-CPU samples (record with --off-cpu, and -e cpu-clock for the CPU side)");
  std::map<std::pair<uint32_t, uint32_t>, ThreadAcc> threads;
  std::vector<uint32_t> locs, seen;
  for (const auto& s : p.samples) {
    WallKind kind = s.event < kinds.size() ? kinds[s.event] : WallKind::kNone;
    if (kind == WallKind::kNone) continue;
    ThreadAcc& acc = threads[{s.pid, s.tid}];
    if (acc.thread.comm.empty()) {
      auto it = p.thread_comms.find(s.tid);
      acc.thread.comm = std::string(p.str(it != p.thread_comms.end() ? it->second : s.comm));
      acc.thread.pid = s.pid;
      acc.thread.tid = s.tid;
    }
    add_sample(p, s, kind, acc, locs, seen);
  }
  std::vector<WallThread> out;
  for (auto& [key, acc] : threads) {
    for (const auto& [f, t] : acc.by_function)
      acc.thread.functions.push_back({std::string(p.str(p.functions[f].name)), t});
    std::sort(acc.thread.functions.begin(), acc.thread.functions.end(), [](const auto& a, const auto& b) {
      return a.times.wall() != b.times.wall() ? a.times.wall() > b.times.wall() : a.name < b.name;
    });
    out.push_back(std::move(acc.thread));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.times.wall() > b.times.wall(); });
  return out;
}

namespace {

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

void row(fmt::memory_buffer& b, const WallTimes& t, const std::string& tail) {
  fmt::format_to(std::back_inserter(b), "{:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f}  {}\n", ms(t.wall()), ms(t.on_cpu),
                 ms(t.blocked), ms(t.runnable), tail);
}

}  // namespace

void write_wall_report(const analysis::Profile& p, const WallOptions& opts, std::FILE* out) {
  auto threads = compute_wall(p);
  fmt::memory_buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it, "# Wall-clock time per thread, in milliseconds: on CPU (cpu-clock/task-clock periods) and off "
                     "CPU,\n# blocked (offcpu-time) or runnable and waiting for a CPU (offcpu-time:preempt).\n#\n");
  const std::string head = fmt::format("# {:>10} {:>12} {:>12} {:>12}  ", "Wall", "On CPU", "Blocked", "Runnable");
  fmt::format_to(it, "{}{}\n", head, "Command  Pid/Tid");
  for (const auto& t : threads) row(b, t.times, fmt::format("{}  {}/{}", t.comm, t.pid, t.tid));
  for (const auto& t : threads) {
    fmt::format_to(it, "\n# {} {}/{}: {:.3f} ms\n{}{}\n", t.comm, t.pid, t.tid, ms(t.times.wall()), head,
                   "Function (its samples and their callees')");
    const double limit = static_cast<double>(t.times.wall()) * opts.percent_limit / 100;
    for (const auto& f : t.functions)
      if (static_cast<double>(f.times.wall()) >= limit) row(b, f.times, f.name);
  }
  if (std::fwrite(b.data(), 1, b.size(), out) != b.size()) throw_runtime("cannot write the report");
}

}  // namespace sonde::report
