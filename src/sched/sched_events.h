// The scheduler tracepoints of a recording as typed events, decoded by
// field name through the recording's own formats (HEADER_TRACING_DATA), so
// sonde's and perf's recordings, and kernels whose layouts differ, read alike.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace sonde::sched {

// A time in perf sched's "seconds.microseconds" form.
std::string usec_time(uint64_t ns);

struct SchedEvent {
  enum Kind { Switch, Wakeup, Waking, WakeupNew, Migrate, Runtime, Fork, Comm } kind = Switch;
  uint64_t time = 0;
  uint32_t cpu = 0;
  uint32_t sample_pid = 0, tid = 0;        // the sample's thread (Comm: the COMM record's)
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

// perf 6.1's letter for sched_switch's prev_state: R when 0, else the
// letter of its lowest set bit in "RSDTtZXxKWP" (W for a preemption on
// kernels that report it as TASK_REPORT_MAX, K for an idle kworker).
char task_state_char(uint64_t prev_state);

// What the recording says of a thread so far (at the event being handled,
// or at the end): its name ("" if never named), process id and parent
// thread (pid 0 when neither a FORK record nor a sample said; parent -1).
struct ThreadInfo {
  std::function<std::string(uint32_t tid)> comm;
  std::function<int32_t(uint32_t tid)> pid;
  std::function<int32_t(uint32_t tid)> ppid;
  // The thread's place among the exits seen so far (EXIT records), -1 if it has not exited.
  std::function<int64_t(uint32_t tid)> exit_order;
};
using ThreadComm = std::function<std::string(uint32_t tid)>;

// Reads `input` in time order; each scheduler event goes to `on_event`.
// `on_end` gets the threads once everything is read.
SchedWalk walk_sched_events(const std::string& input,
                            const std::function<void(const SchedEvent&, const ThreadInfo&)>& on_event,
                            const std::function<void(const ThreadInfo&)>& on_end);

}  // namespace sonde::sched
