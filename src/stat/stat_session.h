// `sonde stat`: count a workload, processes, threads or CPUs, print the
// counts as perf stat does, and optionally write them into the stream
// (`stat record`). `stat report` reads such a stream back.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "stat/aggregate.h"
#include "stat/stat_printer.h"

namespace sonde::stat {

struct StatOptions {
  std::vector<std::string> events;  // -e values
  std::vector<std::string> event_filters;  // --filter of each -e value (empty: none)
  bool system_wide = false;         // -a
  std::string cpu_list;             // -C
  std::vector<int> pids, tids;      // -p, -t
  bool per_thread = false, no_aggr = false, per_core = false, per_socket = false, per_die = false, per_node = false;
  unsigned interval_ms = 0;  // -I
  int repeat = 1;            // -r
  bool no_inherit = false;
  PrintConfig print;
  std::vector<std::string> command;
  std::string record_path;  // stat record -o ("" when not recording)
  // The events to count, once resolve_events() has parsed `events` (or
  // taken perf's default set); run_stat() resolves them when empty.
  std::vector<CounterEvent> counters;
};

// Checks the options (usage errors, one line, before anything is opened),
// resolves the aggregation mode.
AggrMode check_options(const StatOptions& o);

// Checks the options and parses the -e lists and -C into `o.counters`:
// every usage error (an unknown event, a bad CPU list) is thrown here, so a
// caller that calls this before creating its -o file leaves none behind.
void resolve_events(StatOptions& o);

// Counts and prints to `out`. Returns the workload's exit status (0
// without one).
int run_stat(const StatOptions& o, std::FILE* out);

// `stat report -i PATH`: prints the stream's rounds as perf stat report.
// `style` etc. come from `print` (aggregation from the stream unless
// `mode_override` is set).
void report_stat(const std::string& path, PrintConfig print, const AggrMode* mode_override, std::FILE* out);

}  // namespace sonde::stat
