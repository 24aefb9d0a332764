// perf stat's aggregation modes: the counts of every (CPU, thread) summed
// per whole run (global), per CPU (-A), core, die, socket or thread, with
// multiplexed counters scaled by enabled/running time first, as perf does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stat/count_table.h"

namespace sonde::stat {

// perf's enum aggr_mode numbering (STAT_CONFIG's AGGR_MODE term).
enum class AggrMode : uint64_t { None = 0, Global = 1, Socket = 2, Die = 3, Core = 4, Thread = 5, Node = 7 };

struct CpuPlace {
  int socket = 0, die = 0, core = 0, node = 0;
};
// Where `cpu` sits (sysfs topology; zeros when unknown).
CpuPlace cpu_place(int cpu, const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

struct AggrId {
  int node = -1, socket = -1, die = -1, core = -1, cpu = -1, thread = -1;  // thread: an index into CountTable::threads
  bool operator==(const AggrId&) const = default;
};

struct AggrCount {
  double val = 0;  // scaled count (before the event's unit scale)
  uint64_t ena = 0, run = 0;
  int nr = 0;      // CPUs summed (perf's "aggregate-number")
  bool counted() const { return ena != 0 && run != 0; }
};

struct Aggregated {
  AggrMode mode = AggrMode::Global;
  std::vector<AggrId> ids;                   // print order
  std::vector<std::vector<AggrCount>> counts;  // [id][event]
};

// `scale`: scale multiplexed counts by ena/run (perf's default, STAT_CONFIG SCALE).
Aggregated aggregate(const CountTable& table, AggrMode mode, bool scale = true,
                     const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

}  // namespace sonde::stat
