// `sonde trace`: live (the recorder writes raw_syscalls samples into a
// pipe on one thread; this thread reads them in time order and prints),
// replayed from a recording (-i), or only recorded (`trace record`).
#pragma once

#include <cstdio>

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_summary.h"

namespace sonde::trace {

struct TraceOptions {
  std::string syscalls;               // -e: comma list, globs, '!' negates ("" = every call)
  std::vector<pid_t> pids;            // -p
  bool system_wide = false;           // -a
  std::vector<std::string> command;   // -- CMD ARGS
  std::FILE* terminal = nullptr;      // where lines go without -o (the CLI's stderr, as perf trace)
  bool summary_only = false;          // -s
  bool summary = false;               // -S: lines and the summary
  std::string duration;               // --duration MS ("" = none)
  bool failures_only = false;         // --failure
  bool full_time = false;             // -T
  uint64_t max_events = 0;            // --max-events
  std::string output;                 // -o: the text ("" = stderr)
  std::string input;                  // -i: replay this recording
  std::vector<std::string> cmdline;   // for the recording's FEAT_CMDLINE
  bool callchain = false;             // --call-graph fp|dwarf: each call's user call chain under its line
  uint32_t user_stack_bytes = 0;      // --call-graph dwarf[,SIZE]: user stack copied at each exit
  uint32_t max_stack = 0;             // --max-stack: frames shown per chain (0 = all)
  SummaryMode summary_mode = SummaryMode::Thread;  // --summary-mode (cgroup: counted in BPF)
  // --bpf-summary / --no-bpf-summary: the summary's counts kept in BPF
  // maps, no event streamed (unset: on for -s, which prints no line, and
  // for --summary-mode=cgroup, which only BPF can tell).
  std::optional<bool> bpf_summary;
};

// The events `trace` records: perf trace record's.
inline const std::vector<std::string> kSyscallEvents = {"raw_syscalls:sys_enter", "raw_syscalls:sys_exit"};

// Live or -i. Returns the workload's exit status (0 without one). Throws
// sonde::Error: usage errors before anything is opened or attached.
int run_trace(const TraceOptions& options);

// `sonde trace record -o FILE`: the same events written to a recording
// that `trace -i` (and perf trace -i, perf script) reads.
int record_trace(const TraceOptions& options, const std::string& output);

// --duration's text: milliseconds, a non-negative decimal. Usage error otherwise.
uint64_t parse_duration_ns(const std::string& text);

}  // namespace sonde::trace
