// What /proc says about a task the recorder targets (-p/-t): whether it
// exists, whether it is still alive (a zombie is not), its process.
#pragma once

#include <sys/types.h>

namespace sonde::record {

bool process_exists(pid_t pid);
// A zombie still answers kill(pid, 0), so its state is looked at instead.
bool task_alive(pid_t tid);
// The process (thread group) of a thread; the thread itself when unknown.
pid_t tgid_of(pid_t tid);

}  // namespace sonde::record
