// `sonde sched map`: perf sched map (6.1) — one line per context switch,
// one column per CPU with the two-character name of the task running there
// ('*' marks the CPU that switched, '.' the idle task), and a task's name
// the first time it runs or after it changed its name.
#pragma once

#include <string>

namespace sonde::sched {

// Writes the map of `input` to stdout as it goes.
void map_report(const std::string& input);

}  // namespace sonde::sched
