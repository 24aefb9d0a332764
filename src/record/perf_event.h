// perf_event_open(2) with errors turned into one clear line, and the
// start-up probe for the kernel's build-id-in-MMAP2 support.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/fd.h"

namespace sonde::record {

// Opens one event. `name` is used in error messages. Throws sonde::Error
// (runtime) on failure, e.g. "event 'cycles' is not supported on this
// machine (no hardware PMU)".
UniqueFd open_event(const perf_event_attr& attr, pid_t pid, int cpu, const std::string& name);

// True when the kernel has a CPU PMU (hardware events can exist).
bool has_cpu_pmu();

// The kernel-assigned id of an open event (PERF_EVENT_IOC_ID).
uint64_t event_id(int fd);

// True when the kernel accepts attr.build_id (Linux >= 5.12): probed once by
// opening a disabled dummy event on this process, as perf does.
bool kernel_supports_build_id();

}  // namespace sonde::record
