// sonde trace: system calls as perf trace shows them (docs/trace.md).
// `sonde trace [opts] -- CMD | -p PID | -a`, `sonde trace -i FILE`, and
// `sonde trace record [-o FILE] ...`.
#include <memory>

#include "commands.h"
#include "record/cpu_list.h"
#include "number_options.h"
#include "process_args.h"
#include "trace/trace_run.h"
#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::cli {

namespace {

struct TraceArgs {
  std::string syscalls, pids, duration, output, input, max_events, call_graph, max_stack, summary_mode;
  bool system_wide = false, summary_only = false, summary = false, failures = false, full_time = false;
  bool bpf_summary = false, no_bpf_summary = false;
  std::vector<std::string> command;
};

trace::TraceOptions trace_options(const TraceArgs& a) {
  trace::TraceOptions o;
  o.syscalls = a.syscalls;
  if (!a.pids.empty()) o.pids = record::parse_pid_list("-p", a.pids);
  o.system_wide = a.system_wide;
  o.command = a.command;
  o.summary_only = a.summary_only;
  o.summary = a.summary;
  if (!a.summary_mode.empty()) {
    if (a.summary_mode != "thread" && a.summary_mode != "total" && a.summary_mode != "cgroup")
      throw_usage("invalid --summary-mode '{}': expected thread, total or cgroup", a.summary_mode);
    if (!a.summary_only && !a.summary) throw_usage("--summary-mode needs -s or -S");
    o.summary_mode = a.summary_mode == "total"    ? trace::SummaryMode::Total
                     : a.summary_mode == "cgroup" ? trace::SummaryMode::Cgroup
                                                  : trace::SummaryMode::Thread;
  }
  if (a.bpf_summary && a.no_bpf_summary) throw_usage("--bpf-summary and --no-bpf-summary exclude each other");
  if (a.bpf_summary || a.no_bpf_summary) o.bpf_summary = a.bpf_summary;
  o.duration = a.duration;
  o.failures_only = a.failures;
  o.full_time = a.full_time;
  if (!a.max_events.empty()) {
    auto v = parse_uint<uint64_t>(a.max_events);
    if (!v || v.value == 0) throw_usage("invalid --max-events '{}': expected a positive integer", a.max_events);
    o.max_events = v.value;
  }
  if (!a.call_graph.empty()) {
    // perf trace takes fp and dwarf; cfi (sonde's) and lbr (a PMU's) are record's.
    if (a.call_graph == "cfi" || a.call_graph == "lbr")
      throw_usage("trace: --call-graph '{}' is not supported here (fp or dwarf[,SIZE])", a.call_graph);
    o.user_stack_bytes = parse_call_graph(a.call_graph);
    o.callchain = true;
  }
  if (!a.max_stack.empty()) {
    auto v = parse_uint<uint32_t>(a.max_stack);
    if (!v || v.value == 0) throw_usage("invalid --max-stack '{}': expected a positive integer", a.max_stack);
    o.max_stack = v.value;
  }
  o.input = a.input;
  o.output = a.output;
  o.cmdline = own_cmdline();
  o.terminal = stderr;  // perf trace writes its lines to stderr
  return o;
}

// The options `trace` and `trace record` share.
void add_target_options(CLI::App* cmd, TraceArgs& a) {
  cmd->add_option("-e,--expr,--event", a.syscalls,
                  "System calls to show: a comma list of names or globs (open*), '!' first to exclude them")
      ->allow_extra_args(false);
  cmd->add_option("-p,--pid", a.pids, "Trace existing processes PID[,PID...]");
  cmd->add_flag("-a,--all-cpus", a.system_wide, "System-wide: every process (sonde's own calls left out)");
  cmd->add_option("--call-graph", a.call_graph,
                  "Each call's user call chain under its line: fp, or dwarf[,SIZE] (copied stack, unwound here)");
  cmd->add_option("command", a.command, "Workload to run: [--] CMD [ARGS...]");
  cmd->positionals_at_end();
}

}  // namespace

void register_trace(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TraceArgs>();
  auto* cmd = app.add_subcommand("trace", "System calls as perf trace shows them: live, or recorded and replayed");
  add_target_options(cmd, *a);
  cmd->add_flag("-s,--summary", a->summary_only, "Only the per-thread summary of calls, errors and times");
  cmd->add_flag("-S,--with-summary", a->summary, "The lines and the summary");
  cmd->add_option("--summary-mode", a->summary_mode, "thread (a table per thread, the default), total (one table) or cgroup (one per cgroup, counted in BPF)");
  cmd->add_flag("--bpf-summary", a->bpf_summary,
                "Count the summary's calls in BPF maps, streaming no event (the default with -s)");
  cmd->add_flag("--no-bpf-summary", a->no_bpf_summary, "Count the summary's calls from streamed events");
  cmd->add_option("--duration", a->duration, "Only calls that took at least MS milliseconds");
  cmd->add_flag("--failure", a->failures, "Only calls that failed");
  cmd->add_flag("-T,--time", a->full_time, "Absolute timestamps (ms), not relative to the first event");
  cmd->add_option("--max-events", a->max_events, "Stop after printing N calls");
  cmd->add_option("--max-stack", a->max_stack, "With --call-graph: show at most N frames of each chain");
  cmd->add_option("-o,--output", a->output, "Write the lines to FILE instead of standard error");
  cmd->add_option("-i,--input", a->input, "Replay a recording (sonde trace record, perf trace record)");

  auto r = std::make_shared<TraceArgs>();
  auto out = std::make_shared<std::string>("sonde.data");
  auto* rec = cmd->add_subcommand("record", "Record raw_syscalls:sys_enter/sys_exit for `sonde trace -i`");
  add_target_options(rec, *r);
  rec->add_option("-o,--output", *out, "Output file, - for standard output")->capture_default_str();
  rec->callback([r, out, &exit_code] { exit_code = trace::record_trace(trace_options(*r), *out); });
  // CLI11 calls the parent's callback too: `trace record` is not a live trace.
  cmd->callback([a, rec, &exit_code] {
    if (!rec->parsed()) exit_code = trace::run_trace(trace_options(*a));
  });
}

}  // namespace sonde::cli
