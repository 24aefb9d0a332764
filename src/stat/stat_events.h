// The events `sonde stat` counts: perf's default set, or the -e lists with
// {groups}, :u/:k modifiers, tracepoint globs and %provider:event SDT specs.
#pragma once

#include <string>
#include <vector>

#include "stat/count_table.h"

namespace sonde::stat {

// perf 6.1's default set: task-clock (cpu-clock when counting CPUs),
// context-switches, cpu-migrations, page-faults, then the four hardware
// events, which a machine without a PMU shows as <not supported>.
std::vector<CounterEvent> default_events(bool system_wide);

// Parses repeated -e values. A value is a comma list whose items are events
// or `{a,b,...}[:mods]` groups (the modifiers apply to every member).
// Throws a usage error (one line) on an unknown event, an unknown modifier
// or an unbalanced brace. `filters[i]` (perf's --filter after the i-th -e;
// empty: none) goes to the events of that value's last item, which must be
// tracepoints (else a usage error).
std::vector<CounterEvent> parse_stat_events(const std::vector<std::string>& args,
                                            const std::vector<std::string>& filters = {});

// Sets the counting attr bits perf stat sets: read_format with the enabled
// and running times, disabled until started, inherit unless `no_inherit`,
// enable_on_exec when counting a workload we start.
void prepare_counting_attrs(std::vector<CounterEvent>& events, bool enable_on_exec, bool no_inherit);

}  // namespace sonde::stat
