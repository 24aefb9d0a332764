// The scheduler tracepoints of a recording as typed events, decoded by
// field name through the recording's own formats (HEADER_TRACING_DATA), so
// sonde's and perf's recordings, and kernels whose layouts differ, read alike.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace sonde::sched {

struct SchedEvent {
  enum Kind { Switch, Wakeup, Waking, WakeupNew, Migrate, Runtime, Fork } kind = Switch;
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint32_t tid = 0;                        // the sample's thread
  // Switch
  uint32_t prev_pid = 0, next_pid = 0;
  uint64_t prev_state = 0;
  // Wakeup, WakeupNew, Migrate, Runtime: the task; Fork: the child
  uint32_t pid = 0;
  uint64_t runtime = 0;                    // Runtime
  uint32_t orig_cpu = 0, dest_cpu = 0;     // Migrate
};

struct SchedWalk {
  uint64_t samples = 0;      // every sample read
  uint64_t lost = 0;         // samples the kernel lost while recording
};

// A thread's name at the end of the recording ("" if never named).
using ThreadComm = std::function<std::string(uint32_t tid)>;

// Reads `input` in time order; each scheduler event goes to `on_event`.
// `on_end` gets the thread names once everything is read.
SchedWalk walk_sched_events(const std::string& input, const std::function<void(const SchedEvent&)>& on_event,
                            const std::function<void(const ThreadComm&)>& on_end);

}  // namespace sonde::sched
