#include "stat/aggregate.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <tuple>

namespace sonde::stat {

namespace {

int read_int(const std::string& path, int fallback) {
  std::ifstream in(path);
  int v;
  return (in >> v) ? v : fallback;
}

// perf_counts_values__scale: a counter that ran part of the time it was
// enabled is extrapolated; one that never ran counts nothing.
CountValue scaled(CountValue v, bool scale) {
  if (v.run == 0) return {0, v.ena, 0};
  if (scale && v.run < v.ena)
    v.val = static_cast<uint64_t>(static_cast<double>(v.val) * static_cast<double>(v.ena) / static_cast<double>(v.run));
  return v;
}

AggrId id_of(AggrMode mode, int cpu, const CpuPlace& p) {
  AggrId id;
  switch (mode) {
    case AggrMode::None: id.cpu = cpu; break;
    case AggrMode::Core: id.core = p.core; [[fallthrough]];
    case AggrMode::Die: id.die = p.die; [[fallthrough]];
    case AggrMode::Socket: id.socket = p.socket; break;
    case AggrMode::Node: id.node = p.node; break;
    default: break;
  }
  return id;
}

// Adds one CPU's counter to its key, as perf's aggr_cb: once one CPU of a
// key did not count, the key shows <not counted> and stops summing.
// Global and per-thread sums just add up (perf's process_counter_values).
void add(AggrCount& a, const CountValue& v, bool& bad, bool per_cpu_key) {
  if (!per_cpu_key) {
    ++a.nr;
    a.val += static_cast<double>(v.val);
    a.ena += v.ena;
    a.run += v.run;
    return;
  }
  if (bad) return;
  ++a.nr;
  if (v.ena == 0 || v.run == 0) {
    a.ena = a.run = 0;
    bad = true;
    return;
  }
  a.val += static_cast<double>(v.val);
  a.ena += v.ena;
  a.run += v.run;
}

}  // namespace

CpuPlace cpu_place(int cpu, const std::string& dir) {
  std::string base = dir + "/cpu" + std::to_string(cpu) + "/topology/";
  CpuPlace p{read_int(base + "physical_package_id", 0), read_int(base + "die_id", 0), read_int(base + "core_id", cpu), 0};
  // The NUMA node is the nodeN entry in the CPU's folder.
  if (DIR* d = ::opendir((dir + "/cpu" + std::to_string(cpu)).c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') p.node = std::atoi(e->d_name + 4);
    ::closedir(d);
  }
  return p;
}

Aggregated aggregate(const CountTable& t, AggrMode mode, bool scale, const std::string& sysfs_cpu_dir) {
  Aggregated out;
  out.mode = mode;
  size_t nev = t.events.size();
  // The key of every (cpu, thread) slot.
  std::vector<AggrId> slot_ids;
  for (int cpu : t.cpus) {
    // Only the topology modes need sysfs (read per CPU, once per call).
    bool topo = mode == AggrMode::Core || mode == AggrMode::Die || mode == AggrMode::Socket || mode == AggrMode::Node;
    CpuPlace p = (cpu >= 0 && topo) ? cpu_place(cpu, sysfs_cpu_dir) : CpuPlace{};
    for (size_t th = 0; th < t.threads.size(); ++th) {
      AggrId id = (mode == AggrMode::Thread) ? AggrId{.thread = static_cast<int>(th)}
                  : (cpu < 0 && mode != AggrMode::Global) ? AggrId{}
                                                           : id_of(mode, cpu, p);
      slot_ids.push_back(id);
      if (std::find(out.ids.begin(), out.ids.end(), id) == out.ids.end()) out.ids.push_back(id);
    }
  }
  std::sort(out.ids.begin(), out.ids.end(), [](const AggrId& a, const AggrId& b) {
    return std::tie(a.node, a.socket, a.die, a.core, a.cpu, a.thread) < std::tie(b.node, b.socket, b.die, b.core, b.cpu, b.thread);
  });
  out.counts.assign(out.ids.size(), std::vector<AggrCount>(nev));
  bool per_cpu_key = mode != AggrMode::Global && mode != AggrMode::Thread;
  for (size_t e = 0; e < nev; ++e) {
    std::vector<char> bad(out.ids.size(), 0);
    size_t slot = 0;
    for (size_t c = 0; c < t.cpus.size(); ++c)
      for (size_t th = 0; th < t.threads.size(); ++th, ++slot) {
        size_t k = std::find(out.ids.begin(), out.ids.end(), slot_ids[slot]) - out.ids.begin();
        bool b = bad[k];
        add(out.counts[k][e], scaled(t.at(e, c, th), scale), b, per_cpu_key);
        bad[k] = b;
      }
  }
  return out;
}

}  // namespace sonde::stat
