// `sonde sched record`: the scheduler tracepoints perf sched record (6.1)
// records, system-wide, every hit (-c 1), 1024-page buffers.
#pragma once

#include <string>
#include <vector>

#include "record/recorder.h"

namespace sonde::sched {

// sched_switch, sched_stat_runtime, sched_process_fork, sched_wakeup_new,
// sched_migrate_task, and sched_waking (sched_wakeup on kernels without it);
// sched_stat_{wait,sleep,iowait} when the kernel has them (schedstats).
std::vector<std::string> sched_record_events();

// The recorder's options for `sched record [-o F] [CMD]`.
record::RecordOptions sched_record_options(std::string output, std::vector<std::string> command,
                                           std::vector<std::string> cmdline);

}  // namespace sonde::sched
