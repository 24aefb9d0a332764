#include "sched/sched_map.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "sched/sched_events.h"

namespace sonde::sched {

namespace {

class SchedMap {
 public:
  SchedMap() {
    long n = ::sysconf(_SC_NPROCESSORS_CONF);  // perf sizes the map by the reading machine's CPUs
    max_cpu_ = n > 0 ? static_cast<uint32_t>(n) : 1;
  }
  void on_event(const SchedEvent& ev, const ThreadInfo& info) {
    if (ev.kind == SchedEvent::Comm) comm_changed_[ev.tid] = true;
    if (ev.kind == SchedEvent::Switch) on_switch(ev, info);
  }

 private:
  struct Task {
    char name[3] = {0, 0, 0};
  };
  void on_switch(const SchedEvent& ev, const ThreadInfo& info);
  std::string comm(uint32_t tid, const ThreadInfo& info) const {
    if (tid == 0) return "swapper";
    std::string c = info.comm(tid);
    return c.empty() ? fmt::format(":{}", static_cast<int32_t>(tid)) : c;
  }

  uint32_t max_cpu_ = 1;
  char next1_ = 'A', next2_ = '0';
  std::unordered_map<uint32_t, Task> tasks_;
  std::unordered_map<uint32_t, bool> comm_changed_;
  std::vector<int64_t> current_;  // by CPU: the tid running there, -1 none
};

void SchedMap::on_switch(const SchedEvent& ev, const ThreadInfo& info) {
  max_cpu_ = std::max(max_cpu_, ev.cpu);
  if (current_.size() <= ev.cpu) current_.resize(ev.cpu + 1, -1);
  current_[ev.cpu] = ev.next_pid;
  Task& t = tasks_[ev.next_pid];
  const std::string name = comm(ev.next_pid, info);
  bool fresh = false;
  if (!t.name[0]) {
    fresh = true;
    if (name == "swapper") {
      t.name[0] = '.', t.name[1] = ' ';
    } else {
      t.name[0] = next1_, t.name[1] = next2_;
      if (next1_ < 'Z') {
        ++next1_;
      } else {
        next1_ = 'A';
        next2_ = next2_ < '9' ? static_cast<char>(next2_ + 1) : '0';
      }
    }
  }
  std::string line = "  ";
  for (uint32_t c = 0; c < max_cpu_; ++c) {
    line += c == ev.cpu ? '*' : ' ';
    const int64_t tid = c < current_.size() ? current_[c] : -1;
    line += tid >= 0 ? fmt::format("{:>2} ", tasks_[static_cast<uint32_t>(tid)].name) : "   ";
  }
  line += fmt::format("  {:>12} secs ", fmt::format("{}.{:06}", ev.time / 1000000000, ev.time % 1000000000 / 1000));
  bool& changed = comm_changed_[ev.next_pid];
  if (fresh || changed) {
    line += fmt::format("{} => {}:{}", t.name, name, static_cast<int32_t>(ev.next_pid));
    changed = false;
  }
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
}

}  // namespace

void map_report(const std::string& input) {
  SchedMap map;
  walk_sched_events(
      input, [&](const SchedEvent& ev, const ThreadInfo& info) { map.on_event(ev, info); }, [](const ThreadInfo&) {});
  std::fflush(stdout);
}

}  // namespace sonde::sched
