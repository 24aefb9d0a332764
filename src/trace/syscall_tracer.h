// perf trace's view of raw_syscalls:sys_enter/sys_exit samples: each call
// becomes one line when it returns (perf 6.1's layout, below), calls that
// never return (exit_group) a line when they are entered; per-thread
// statistics for the summary (trace_summary.h).
//
//   `     0.068 ( 0.012 ms): cat/6791 brk()                   = 0x55a85070e000`
//   timestamp (ms since the first event, or absolute with -T), duration,
//   comm/tid, name(args), padded so `=` falls 70 columns after the name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/arg_format.h"
#include "trace/fd_paths.h"
#include "trace/syscall_signatures.h"

namespace sonde::trace {

struct TracerOptions {
  bool lines = true;                 // false with -s (summary only)
  bool full_time = false;            // -T: absolute timestamps
  uint64_t min_duration_ns = 0;      // --duration
  bool failures_only = false;        // --failure
  uint64_t max_events = 0;           // --max-events: lines printed, 0 = no limit
  std::vector<uint32_t> syscalls;    // -e (sorted; empty = every call), applied again when replaying
  bool live = false;                 // the processes run now: descriptors' paths from /proc (fd_paths.h)
};

struct CallStats {
  uint64_t calls = 0, errors = 0;
  uint64_t total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
  double mean = 0, m2 = 0;  // Welford's running mean and sum of squares (perf's update_stats)
};

struct ThreadStats {
  uint32_t pid = 0, tid = 0;
  std::string comm;
  uint64_t events = 0;                   // enter and exit samples
  std::map<uint32_t, CallStats> calls;   // by syscall number
};

class SyscallTracer {
 public:
  SyscallTracer(TracerOptions options, SyscallSignatures& signatures, std::FILE* out, CommLookup comm);

  void on_enter(uint32_t pid, uint32_t tid, uint64_t time, uint64_t nr, const uint64_t (&args)[6]);
  void on_exit(uint32_t pid, uint32_t tid, uint64_t time, uint64_t nr, int64_t ret);
  // A path string argument read at entry: it joins the call `nr` of `tid`
  // whether it comes just before or just after the call's entry.
  void on_string(uint32_t tid, uint64_t time, uint64_t nr, uint32_t arg, std::string_view text);

  // --max-events reached: nothing more is printed.
  bool done() const { return options_.max_events && printed_ >= options_.max_events; }
  uint64_t events() const { return events_; }
  uint64_t lines_printed() const { return printed_; }
  // Threads in first-seen order.
  std::vector<const ThreadStats*> threads() const;

 private:
  struct Pending {
    bool active = false;
    uint64_t nr = 0, time = 0;
    uint64_t args[6] = {};
    ArgStrings strings;
  };
  struct ThreadState {
    Pending pending;
    ThreadStats stats;
    uint64_t early_nr = UINT64_MAX;  // strings that came before their call's entry
    ArgStrings early;
    size_t order = 0;
  };

  ThreadState& thread(uint32_t pid, uint32_t tid);
  bool selected(uint64_t nr) const;
  std::string head(const ThreadState& t, uint64_t time, std::optional<uint64_t> duration) const;
  void print(const std::string& line);
  std::string call_text(const SyscallSignature& sig, uint32_t pid, const Pending& call);
  void learn_descriptors(const SyscallSignature& sig, uint32_t pid, const Pending& call, int64_t ret);
  uint64_t relative(uint64_t time) const { return options_.full_time ? time : time - base_time_; }

  TracerOptions options_;
  SyscallSignatures& signatures_;
  std::FILE* out_;
  CommLookup comm_;
  std::unordered_map<uint32_t, ThreadState> threads_;
  FdPaths fds_;
  uint64_t base_time_ = 0;
  bool have_base_ = false;
  uint64_t events_ = 0, printed_ = 0;
};

}  // namespace sonde::trace
