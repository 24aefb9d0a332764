// perf report --task: every task the recording names (COMM and FORK
// records), as a tree of parents and children, in perf 6.1's layout:
//   #      pid      tid     ppid  comm
//            0        0       -1 |swapper
//        27762    27762       -1 |sh
//        27764    27764    27762 | ls
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/stream_reader.h"

namespace sonde::tasks {

struct Task {
  int32_t pid = -1, tid = -1;
  int32_t ppid = -1;  // the parent thread's tid (FORK's ptid), -1 when unknown
  std::string comm;   // the latest COMM
};

// The tasks of the records `reader` yields (read to the end), perf's idle
// task 0 first.
std::vector<Task> read_tasks(format::RecordReader& reader);

// The tree: roots (no known parent) by tid, each followed by its children,
// depth-first, each level indented by one more space after the '|'.
std::string format_task_tree(const std::vector<Task>& tasks);

}  // namespace sonde::tasks
