// perf_event_open(2) with errors turned into one clear line, and the
// start-up probe for the kernel's build-id-in-MMAP2 support.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "format/uapi/perf_event.h"
#include "util/fd.h"

namespace sonde::kernel {

// perf_event_open(2) with the kernel's size protocol. sonde's attr (VER8,
// 136 bytes) is larger than a kernel before 6.3 knows; such a kernel fails
// with E2BIG and writes its own size into attr.size. When every byte of
// `attr` past that size is zero the call is repeated at that size, so
// attr.size is then the size the kernel accepted: what the recording says.
// Returns the fd, or -1 with errno set (E2BIG, with the kernel's size in
// attr.size, when a field the kernel does not know is set).
int perf_event_open_sized(perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags);

// Opens one event (perf_event_open_sized: attr.size may shrink). `name` is
// used in error messages. Throws sonde::Error (runtime) on failure, e.g.
// "event 'cycles' is not supported on this machine (no hardware PMU)".
UniqueFd open_event(perf_event_attr& attr, pid_t pid, int cpu, const std::string& name);

// True when the kernel has a CPU PMU (hardware events can exist).
bool has_cpu_pmu();

// The kernel-assigned id of an open event (PERF_EVENT_IOC_ID).
uint64_t event_id(int fd);

// True when the kernel accepts attr.build_id (Linux >= 5.12): probed once by
// opening a disabled dummy event on this process, as perf does.
bool kernel_supports_build_id();
// Whether events can time their records on `clockid` (attr.use_clockid; Linux 4.1).
bool kernel_supports_clockid(int32_t clockid);

}  // namespace sonde::kernel
