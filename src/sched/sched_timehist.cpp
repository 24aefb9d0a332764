#include "sched/sched_timehist.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sched/sched_events.h"

namespace sonde::sched {

namespace {

// perf's per-thread runtime data (thread_runtime).
struct Runtime {
  uint64_t last_time = 0, dt_run = 0, dt_sleep = 0, dt_iowait = 0, dt_preempt = 0, dt_delay = 0;
  uint64_t ready_to_run = 0, migrations = 0;
  uint64_t n = 0, min = UINT64_MAX, max = 0;
  double mean = 0, m2 = 0;
  uint64_t total_run = 0, total_sleep = 0, total_iowait = 0, total_preempt = 0, total_delay = 0;
  char last_state = 0;
};

// "msecs.usecs " right-aligned in `width` for the milliseconds (print_sched_time).
std::string sched_time(uint64_t ns, int width) {
  return fmt::format("{:>{}}.{:03} ", ns / 1000000, width, ns % 1000000 / 1000);
}


void update_runtime(Runtime& r, uint64_t t, uint64_t tprev) {
  r.dt_delay = r.dt_sleep = r.dt_iowait = r.dt_preempt = r.dt_run = 0;
  if (tprev) {
    r.dt_run = t - tprev;
    if (r.ready_to_run && r.ready_to_run <= tprev) r.dt_delay = tprev - r.ready_to_run;
    if (r.last_time && r.last_time <= tprev) {
      const uint64_t wait = tprev - r.last_time;
      (r.last_state == 'R' ? r.dt_preempt : r.last_state == 'D' ? r.dt_iowait : r.dt_sleep) = wait;
    }
  }
  ++r.n;
  r.min = std::min(r.min, r.dt_run);
  r.max = std::max(r.max, r.dt_run);
  const double delta = static_cast<double>(r.dt_run) - r.mean;
  r.mean += delta / static_cast<double>(r.n);
  r.m2 += delta * (static_cast<double>(r.dt_run) - r.mean);
  r.total_run += r.dt_run;
  r.total_delay += r.dt_delay;
  r.total_sleep += r.dt_sleep;
  r.total_iowait += r.dt_iowait;
  r.total_preempt += r.dt_preempt;
}

class Timehist {
 public:
  explicit Timehist(const TimehistOptions& o) : o_(o) {}
  void on_event(const SchedEvent& ev, const ThreadInfo& info);
  void header();
  void summary(const ThreadInfo& info);

 private:
  std::string task_row(uint32_t tid, const ThreadInfo& info, uint64_t& tasks, uint64_t& switches, uint64_t& run);
  std::string commstr(uint32_t tid, const ThreadInfo& info, bool idle = false);
  void on_switch(const SchedEvent& ev, const ThreadInfo& info);
  void on_wakeup(const SchedEvent& ev, const ThreadInfo& info);
  void out(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

  TimehistOptions o_;
  int comm_width_ = 30;
  std::map<uint32_t, Runtime> tasks_;  // by tid
  std::map<uint32_t, Runtime> idle_;   // by CPU
  std::map<uint32_t, uint64_t> last_switch_;  // by CPU
  uint64_t hist_start_ = 0, hist_end_ = 0;
  uint32_t max_cpu_ = 0;
};

// "comm[tid]", "comm[tid/pid]" for a thread of another process, "<idle>".
std::string Timehist::commstr(uint32_t tid, const ThreadInfo& info, bool idle) {
  std::string s;
  if (idle) {
    s = "<idle>";
  } else {
    // Samples of a task past its exit carry pid and tid -1: perf's ":-1[-1]".
    const auto stid = static_cast<int32_t>(tid);
    std::string comm = info.comm(tid);
    if (comm.empty()) comm = fmt::format(":{}", stid);
    const int32_t pid = info.pid(tid);
    // A thread first seen as a wakee has pid 0 for perf: its name alone.
    s = pid == 0 ? comm : pid != stid ? fmt::format("{}[{}/{}]", comm, stid, pid) : fmt::format("{}[{}]", comm, stid);
  }
  comm_width_ = std::max(comm_width_, static_cast<int>(std::min<size_t>(s.size(), 31)));
  return s.substr(0, 31);
}

void Timehist::header() {
  std::string h = fmt::format("{:>15} {:>6}  {:<{}}  {:>9}  {:>9}  {:>9}", "time", "cpu", "task name", comm_width_,
                              "wait time", "sch delay", "run time");
  if (o_.state) h += "  state";
  h += fmt::format("\n{:>15} {:<6}  {:<{}}  {:>9}  {:>9}  {:>9}", "", "", "[tid/pid]", comm_width_, "(msec)",
                   "(msec)", "(msec)");
  if (o_.state) h += "       ";
  h += "\n" + std::string(15, '-') + " " + std::string(6, '-') + "  " + std::string(comm_width_, '-') + "  " +
       std::string(9, '-') + "  " + std::string(9, '-') + "  " + std::string(9, '-');
  if (o_.state) h += "  -----";
  out(h + "\n");
}

void Timehist::on_event(const SchedEvent& ev, const ThreadInfo& info) {
  max_cpu_ = std::max(max_cpu_, ev.cpu);
  if (ev.kind == SchedEvent::Switch) on_switch(ev, info);
  else if (ev.kind == SchedEvent::Wakeup || ev.kind == SchedEvent::Waking || ev.kind == SchedEvent::WakeupNew)
    on_wakeup(ev, info);
  // Migrations are counted only with perf's -M, which sonde does not offer.
}

void Timehist::on_wakeup(const SchedEvent& ev, const ThreadInfo& info) {
  Runtime& r = tasks_[ev.pid];
  if (r.ready_to_run == 0) r.ready_to_run = ev.time;
  if (!o_.wakeups || o_.summary_only) return;
  const std::string waker = commstr(ev.tid ? ev.tid : ev.sample_pid, info, ev.sample_pid == 0 && ev.tid == 0);
  std::string line = fmt::format("{:>15} [{:04}]  {:<{}}   {:>9}  {:>9}  {:>9} ", usec_time(ev.time), ev.cpu, waker,
                                 comm_width_, "", "", "");
  // The wakee's name widens the column only from the next line on, as in perf.
  out(line + "awakened: " + commstr(ev.pid, info) + "\n");
}

void Timehist::on_switch(const SchedEvent& ev, const ThreadInfo& info) {
  const bool idle = ev.prev_pid == 0;
  const uint32_t tid = ev.tid ? ev.tid : ev.sample_pid;
  Runtime& r = idle ? idle_[ev.cpu] : tasks_[tid];
  const char state = task_state_char(ev.prev_state);
  auto last = last_switch_.find(ev.cpu);
  const uint64_t tprev = last == last_switch_.end() ? 0 : last->second;
  update_runtime(r, ev.time, tprev);
  if (!o_.summary_only) {
    std::string line = fmt::format("{:>15} [{:04}]  ", usec_time(ev.time), ev.cpu);
    const std::string name = commstr(tid, info, idle);
    line += fmt::format("{:<{}} ", name, comm_width_);
    line += sched_time(r.dt_sleep + r.dt_iowait + r.dt_preempt, 6) + sched_time(r.dt_delay, 6) + sched_time(r.dt_run, 6);
    if (o_.state) line += fmt::format(" {:>5} ", idle ? 'I' : state);
    if (o_.wakeups) line += fmt::format("  {:<{}}", "", comm_width_);
    out(line + "\n");
  }
  if (hist_start_ == 0) hist_start_ = ev.time;
  hist_end_ = ev.time;
  r.last_time = ev.time;
  r.last_state = state;
  r.ready_to_run = 0;  // perf 6.1: a delay counts from a wakeup only, not from a preemption
  last_switch_[ev.cpu] = ev.time;
}

// One task's summary line (print_thread_runtime / print_thread_waittime).
std::string Timehist::task_row(uint32_t tid, const ThreadInfo& info, uint64_t& tasks, uint64_t& switches,
                               uint64_t& run) {
  const Runtime& r = tasks_[tid];
  ++tasks;
  switches += r.n;
  run += r.total_run;
  const std::string name = commstr(tid, info);
  std::string s = fmt::format("{:>{}}   {:5}  {:9} ", name, comm_width_, info.ppid(tid), r.n) + sched_time(r.total_run, 8);
  if (o_.state)
    return s + sched_time(r.total_sleep, 6) + " " + sched_time(r.total_iowait, 6) + " " +
           sched_time(r.total_preempt, 6) + " " + sched_time(r.total_delay, 6) + "\n";
  const double n = static_cast<double>(r.n);
  const double sd = r.n < 2 ? 0 : std::sqrt(r.m2 / (n - 1) / n);
  return s + sched_time(r.min, 6) + " " + sched_time(static_cast<uint64_t>(r.mean), 6) + " " + sched_time(r.max, 6) +
         "  " + fmt::format("{:5.2f}   {:5}\n", r.mean ? 100.0 * sd / r.mean : 0.0, r.migrations);
}

void Timehist::summary(const ThreadInfo& info) {
  std::string s = o_.state ? fmt::format("\nWait-time summary\n{:>{}}  parent   sched-in     run-time      sleep      "
                                         "iowait     preempt       delay\n", "comm", comm_width_)
                           : fmt::format("\nRuntime summary\n{:>{}}  parent   sched-in     run-time    min-run     "
                                         "avg-run     max-run  stddev  migrations\n", "comm", comm_width_);
  s += fmt::format("{:>{}}            (count)       (msec)     (msec)      (msec)      (msec)       {}\n", "",
                   comm_width_, o_.state ? "(msec)" : "%");
  s += std::string(117, '-') + "\n";
  // perf's order: live threads by its thread table's buckets (tid % 256),
  // tids ascending in each; then the terminated ones, in exit order.
  std::vector<uint32_t> live;
  std::vector<std::pair<int64_t, uint32_t>> dead;
  for (auto& [tid, r] : tasks_) {
    if (!r.n) continue;
    if (int64_t e = info.exit_order(tid); e >= 0) dead.emplace_back(e, tid);
    else live.push_back(tid);
  }
  std::stable_sort(live.begin(), live.end(), [](uint32_t a, uint32_t b) { return a % 256 < b % 256; });
  std::sort(dead.begin(), dead.end());
  uint64_t tasks = 0, switches = 0, run = 0;
  for (uint32_t tid : live) s += task_row(tid, info, tasks, switches, run);
  if (!tasks) s += "<no still running tasks>\n";
  s += "\nTerminated tasks:\n";
  for (auto& [e, tid] : dead) s += task_row(tid, info, tasks, switches, run);
  if (dead.empty()) s += "<no terminated tasks>\n";
  const uint64_t hist = hist_end_ - hist_start_;
  s += "\nIdle stats:\n";
  for (uint32_t cpu = 0; cpu <= max_cpu_; ++cpu) {
    auto it = idle_.find(cpu);
    if (it != idle_.end() && it->second.n) {
      switches += it->second.n;
      s += fmt::format("    CPU {:2} idle for ", cpu) + sched_time(it->second.total_run, 6) +
           fmt::format(" msec  ({:6.2f}%)\n", hist ? 100.0 * static_cast<double>(it->second.total_run) / hist : 0.0);
    } else {
      s += fmt::format("    CPU {:2} idle entire time window\n", cpu);
    }
  }
  s += fmt::format("\n    Total number of unique tasks: {}\nTotal number of context switches: {}\n", tasks, switches);
  s += "           Total run time (msec): " + sched_time(run, 2) + "\n";
  s += "    Total scheduling time (msec): " + sched_time(hist, 2) + fmt::format(" (x {})\n", max_cpu_ + 1);
  out(s);
}

}  // namespace

void timehist_report(const std::string& input, const TimehistOptions& options) {
  Timehist th(options);
  bool headed = false;
  walk_sched_events(
      input,
      [&](const SchedEvent& ev, const ThreadInfo& info) {
        if (!headed && !options.summary_only) th.header();
        headed = true;
        th.on_event(ev, info);
      },
      [&](const ThreadInfo& info) {
        if (options.summary_only || options.summary) th.summary(info);
      });
  std::fflush(stdout);
}

}  // namespace sonde::sched
