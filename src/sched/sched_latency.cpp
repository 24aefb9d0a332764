#include "sched/sched_latency.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sched/sched_events.h"

namespace sonde::sched {

namespace {

enum class AtomState { Sleeping, WaitCpu, SchedIn, Ignore };

// perf's work_atoms, keeping only the last atom (the only one it consults).
struct TaskAtoms {
  uint32_t tid = 0;
  bool has_atom = false;
  AtomState state = AtomState::Sleeping;
  uint64_t sched_out_time = 0, wake_up_time = 0;
  uint64_t max_lat = 0, max_lat_start = 0, max_lat_end = 0, total_lat = 0, nb_atoms = 0, total_runtime = 0;
  int num_merged = 0;
  std::string comm;
};

class Latency {
 public:
  void on_event(const SchedEvent& ev) {
    switch (ev.kind) {
      case SchedEvent::Switch: on_switch(ev); break;
      case SchedEvent::Runtime: on_runtime(ev); break;
      case SchedEvent::Wakeup:
      case SchedEvent::WakeupNew: on_wakeup(ev); break;
      // perf 6.1's latency has no handler for sched_waking (which its own
      // sched record prefers): a wakeup is then seen only as wakeup_new,
      // and sonde counts as perf does. Migrations matter only for one CPU
      // (perf's -C), forks not at all.
      default: break;
    }
  }
  std::string report(const ThreadComm& comm, uint64_t lost);

 private:
  TaskAtoms& atoms(uint32_t tid, bool* fresh = nullptr) {
    auto [it, inserted] = tasks_.try_emplace(tid);
    it->second.tid = tid;
    if (fresh) *fresh = inserted;
    return it->second;
  }
  // perf's add_sched_out_event: a new atom; runnable ones wait from now.
  static void sched_out(TaskAtoms& a, bool runnable, uint64_t time) {
    a.has_atom = true;
    a.sched_out_time = time;
    a.state = runnable ? AtomState::WaitCpu : AtomState::Sleeping;
    a.wake_up_time = runnable ? time : 0;
  }
  static void sched_in(TaskAtoms& a, uint64_t time);
  void on_switch(const SchedEvent& ev);
  void on_runtime(const SchedEvent& ev);
  void on_wakeup(const SchedEvent& ev);

  std::map<uint32_t, TaskAtoms> tasks_;  // by tid: perf's atom_root order
  std::unordered_map<uint32_t, uint32_t> curr_pid_;
  uint64_t nr_timestamps_ = 0, nr_unordered_ = 0, nr_switch_bugs_ = 0, nr_events_ = 0;
};

void Latency::sched_in(TaskAtoms& a, uint64_t time) {
  if (!a.has_atom || a.state != AtomState::WaitCpu) return;
  if (time < a.wake_up_time) {
    a.state = AtomState::Ignore;
    return;
  }
  a.state = AtomState::SchedIn;
  const uint64_t delta = time - a.wake_up_time;
  a.total_lat += delta;
  if (delta > a.max_lat) a.max_lat = delta, a.max_lat_start = a.wake_up_time, a.max_lat_end = time;
  ++a.nb_atoms;
}

void Latency::on_switch(const SchedEvent& ev) {
  ++nr_events_;
  auto cur = curr_pid_.find(ev.cpu);
  if (cur != curr_pid_.end() && cur->second != ev.prev_pid) ++nr_switch_bugs_;
  curr_pid_[ev.cpu] = ev.next_pid;
  // prev_state 0 is TASK_RUNNING: preempted, so waiting for a CPU from now.
  sched_out(atoms(ev.prev_pid), ev.prev_state == 0, ev.time);
  bool fresh = false;
  TaskAtoms& in = atoms(ev.next_pid, &fresh);
  if (fresh) sched_out(in, true, ev.time);
  sched_in(in, ev.time);
}

void Latency::on_runtime(const SchedEvent& ev) {
  ++nr_events_;
  bool fresh = false;
  TaskAtoms& a = atoms(ev.pid, &fresh);
  if (fresh) sched_out(a, true, ev.time);
  a.total_runtime += ev.runtime;
}

void Latency::on_wakeup(const SchedEvent& ev) {
  ++nr_events_;
  bool fresh = false;
  TaskAtoms& a = atoms(ev.pid, &fresh);
  if (fresh) sched_out(a, false, ev.time);
  if (a.state != AtomState::Sleeping) return;
  ++nr_timestamps_;
  if (a.sched_out_time > ev.time) {
    ++nr_unordered_;
    return;
  }
  a.state = AtomState::WaitCpu;
  a.wake_up_time = ev.time;
}


std::string Latency::report(const ThreadComm& comm, uint64_t lost) {
  // perf's merge: tasks of one name become one row (in descending name order).
  std::map<std::string, TaskAtoms, std::greater<>> merged;
  for (auto& [tid, t] : tasks_) {
    std::string name = comm(tid);
    if (tid == 0) name = "swapper";
    if (name.empty()) name = fmt::format(":{}", tid);
    auto [it, fresh] = merged.try_emplace(name, t);
    TaskAtoms& m = it->second;
    if (fresh) {
      m.comm = name;
      m.num_merged = 1;
      continue;
    }
    ++m.num_merged;
    m.total_runtime += t.total_runtime;
    m.nb_atoms += t.nb_atoms;
    m.total_lat += t.total_lat;
    if (m.max_lat < t.max_lat) m.max_lat = t.max_lat, m.max_lat_start = t.max_lat_start, m.max_lat_end = t.max_lat_end;
  }
  std::vector<const TaskAtoms*> rows;
  for (auto& [name, m] : merged) rows.push_back(&m);
  auto key = [](const TaskAtoms* a) {
    return std::make_tuple(a->nb_atoms ? a->total_lat / a->nb_atoms : 0, a->max_lat, a->nb_atoms, a->total_runtime);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) { return key(a) > key(b); });
  const std::string dashes(139, '-');
  std::string out = "\n " + dashes + "\n";
  out += "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start "
         "          | Max delay end          |\n";
  out += " " + dashes + "\n";
  uint64_t all_runtime = 0, all_count = 0;
  for (const TaskAtoms* a : rows) {
    if (!a->nb_atoms || a->comm == "swapper") continue;
    all_runtime += a->total_runtime;
    all_count += a->nb_atoms;
    std::string name = a->num_merged > 1 ? fmt::format("  {}:({}) ", a->comm, a->num_merged)
                                         : fmt::format("  {}:{} ", a->comm, a->tid);
    if (name.size() < 24) name.append(24 - name.size(), ' ');
    out += name + fmt::format("|{:11.3f} ms |{:9} | avg:{:8.3f} ms | max:{:8.3f} ms | max start: {:>12} s | max end: {:>12} s\n",
                              static_cast<double>(a->total_runtime) / 1e6, a->nb_atoms,
                              static_cast<double>(a->total_lat / a->nb_atoms) / 1e6, static_cast<double>(a->max_lat) / 1e6,
                              usec_time(a->max_lat_start), usec_time(a->max_lat_end));
  }
  out += " " + std::string(113, '-') + "\n";
  out += fmt::format("  TOTAL:                |{:11.3f} ms |{:9} |\n", static_cast<double>(all_runtime) / 1e6, all_count);
  out += " " + std::string(51, '-') + "\n";
  if (nr_unordered_ && nr_timestamps_)
    out += fmt::format("  INFO: {:.3f}% unordered timestamps ({} out of {})\n",
                       100.0 * static_cast<double>(nr_unordered_) / static_cast<double>(nr_timestamps_), nr_unordered_,
                       nr_timestamps_);
  if (lost && nr_events_)
    out += fmt::format("  INFO: {:.3f}% lost events ({} out of {})\n",
                       100.0 * static_cast<double>(lost) / static_cast<double>(nr_events_), lost, nr_events_);
  if (nr_switch_bugs_ && nr_timestamps_)
    out += fmt::format("  INFO: {:.3f}% context switch bugs ({} out of {}){}\n",
                       100.0 * static_cast<double>(nr_switch_bugs_) / static_cast<double>(nr_timestamps_),
                       nr_switch_bugs_, nr_timestamps_, lost ? " (due to lost events?)" : "");
  return out + "\n";
}

}  // namespace

std::string latency_report(const std::string& input) {
  Latency lat;
  std::string text;
  walk_sched_events(
      input, [&](const SchedEvent& ev, const ThreadInfo&) { lat.on_event(ev); },
      [&](const ThreadInfo& threads) { text = lat.report(threads.comm, 0); });
  return text;
}

}  // namespace sonde::sched
