// sonde stat [options] [--] CMD ARGS: perf stat's counting and output.
// sonde stat record [-o FILE|-] ...: the same, counts also written into the
// pipe-mode stream (perf stat record's records).
// sonde stat report [-i FILE]: prints such a stream (sonde's or perf's).
#include <clocale>
#include <cstdio>
#include <ctime>
#include <memory>

#include "commands.h"
#include "event_filters.h"
#include "kernel/process_limits.h"
#include "record/cpu_list.h"
#include "number_options.h"
#include "reading_options.h"
#include "stat/stat_session.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct StatArgs {
  std::vector<std::string> events, filters;
  bool system_wide = false, per_thread = false, no_aggr = false, per_core = false, per_socket = false, per_die = false, per_node = false, no_merge = false;
  std::string cpus, pids, tids, csv_sep, output;
  int interval = 0, repeat = 1;
  bool json = false, append = false, quiet = false, no_big_num = false, no_inherit = false;
  std::vector<std::string> command;
  std::string record_output = "sonde.data";
  std::string input;
};

void add_aggregation_flags(CLI::App* cmd, StatArgs& a) {
  cmd->add_flag("-A,--no-aggr", a.no_aggr, "One line per CPU (no aggregation)");
  cmd->add_flag("--per-core", a.per_core, "Counts per physical core");
  cmd->add_flag("--per-die", a.per_die, "Counts per die");
  cmd->add_flag("--per-socket", a.per_socket, "Counts per socket");
  cmd->add_flag("--per-node", a.per_node, "Counts per NUMA node");
  cmd->add_flag("--no-merge", a.no_merge, "Accepted for perf's sake: sonde never merges events of the same name");
  cmd->add_flag("--per-thread", a.per_thread, "Counts per thread (with -p/-t, or every thread system-wide)");
  cmd->add_option("-x,--field-separator", a.csv_sep, "CSV output with this separator, in perf's field order");
  cmd->add_flag("-j,--json-output", a.json, "JSON lines, in perf's field order");
  cmd->add_flag("--no-big-num", a.no_big_num, "No thousands separators");
}

void add_counting_options(CLI::App* cmd, StatArgs& a) {
  cmd->add_option("-e,--event", a.events,
                  "Events, repeatable, comma lists: task-clock, cs, page-faults:u, {a,b} groups, tracepoints "
                  "(globs: 'syscalls:sys_enter_*'); default: perf's set")
      ->allow_extra_args(false);
  add_filter_option(cmd, a.filters);
  cmd->add_flag("-a,--all-cpus", a.system_wide, "Count every CPU (system-wide)");
  cmd->add_option("-C,--cpu", a.cpus, "Count these CPUs only, e.g. 0,2-3");
  cmd->add_option("-p,--pid", a.pids, "Count existing processes PID[,PID...]");
  cmd->add_option("-t,--tid", a.tids, "Count existing threads TID[,TID...]");
  cmd->add_option("-I,--interval-print", a.interval, "Print counts every MS milliseconds (perf's minimum: 1)");
  cmd->add_option("-r,--repeat", a.repeat, "Run the command N times: mean and +- stddev");
  cmd->add_flag("-i,--no-inherit", a.no_inherit, "Do not count child tasks");
  cmd->add_flag("-q,--quiet", a.quiet, "Print no counts (with record)");
  cmd->add_flag("--append", a.append, "Append to the -o file");
  add_aggregation_flags(cmd, a);
  cmd->add_option("command", a.command,
                  "Workload: [--] CMD [ARGS...]; with -a/-C/-p/-t it sets the duration. Exit status: the command's "
                  "(128+N if killed by signal N); 2 for malformed input; 1 when counting cannot be done");
  cmd->positionals_at_end();
}

stat::PrintConfig print_config(const StatArgs& a) {
  if (!a.csv_sep.empty() && a.json) throw_usage("-x and -j cannot be combined");
  stat::PrintConfig p;
  if (!a.csv_sep.empty()) {
    p.style = stat::OutputStyle::Csv;
    p.csv_sep = a.csv_sep == "\\t" ? "\t" : a.csv_sep;
  }
  if (a.json) p.style = stat::OutputStyle::Json;
  p.big_num = !a.no_big_num;
  p.run_count = a.repeat;
  p.interval_ms = a.interval > 0 ? static_cast<unsigned>(a.interval) : 0;
  return p;
}

stat::StatOptions stat_options(const StatArgs& a, const CLI::App& cmd) {
  if (a.interval < 0) throw_usage("invalid -I '{}': expected milliseconds >= 1 (0: off)", a.interval);
  stat::StatOptions o;
  o.events = a.events;
  o.event_filters = filters_per_event(cmd, a.filters);
  o.system_wide = a.system_wide;
  o.cpu_list = a.cpus;
  if (!a.pids.empty()) o.pids = record::parse_pid_list("-p", a.pids);
  if (!a.tids.empty()) o.tids = record::parse_pid_list("-t", a.tids);
  o.per_thread = a.per_thread;
  o.no_aggr = a.no_aggr;
  o.per_core = a.per_core;
  o.per_socket = a.per_socket;
  o.per_die = a.per_die;
  o.per_node = a.per_node;
  o.interval_ms = a.interval > 0 ? static_cast<unsigned>(a.interval) : 0;
  o.repeat = a.repeat;
  o.no_inherit = a.no_inherit;
  o.print = print_config(a);
  o.print.system_wide_per_thread = a.per_thread && a.pids.empty() && a.tids.empty();
  o.command = a.command;
  return o;
}

// Where the counts go: stderr (perf's default), the -o file with perf's
// "# started on" line, or nowhere with -q.
struct TextOutput {
  std::FILE* file = stderr;
  bool owned = false;
  ~TextOutput() {
    if (owned) std::fclose(file);
  }
};

void open_text_output(TextOutput& t, const std::string& path, bool append, bool quiet) {
  if (quiet) {
    t.file = nullptr;
    return;
  }
  if (path.empty()) return;
  t.file = std::fopen(path.c_str(), append ? "a" : "w");
  if (!t.file) throw_runtime("cannot open '{}': {}", path, errno_text(errno));
  t.owned = true;
  std::time_t now = std::time(nullptr);
  std::fprintf(t.file, "# started on %s\n", std::ctime(&now));
}

void run(const StatArgs& a, const CLI::App& cmd, bool record, int& exit_code) {
  std::setlocale(LC_NUMERIC, "");  // perf's %' thousands separators follow the locale
  stat::StatOptions o = stat_options(a, cmd);
  if (record) o.record_path = a.record_output;
  stat::resolve_events(o);  // every usage error before the -o file is created
  TextOutput out;
  open_text_output(out, record ? "" : a.output, a.append, a.quiet);
  set_diagnostics_quiet(a.quiet);  // as perf stat -q: no warnings or messages either
  // One fd per event, CPU and thread: -a --per-thread opens thousands. As
  // perf, the soft limit is raised to the hard one (the CLI's to change).
  kernel::raise_open_file_limit();
  exit_code = stat::run_stat(o, out.file);
}

void register_stat_record(CLI::App* stat_cmd, int& exit_code) {
  auto a = std::make_shared<StatArgs>();
  auto* cmd = stat_cmd->add_subcommand("record", "Count as stat does and write the counts into a pipe-mode stream");
  add_counting_options(cmd, *a);
  cmd->add_option("-o,--output", a->record_output, "Stream to write, - for standard output")->capture_default_str();
  cmd->callback([a, cmd, &exit_code] { run(*a, *cmd, true, exit_code); });
}

void register_stat_report(CLI::App* stat_cmd) {
  auto a = std::make_shared<StatArgs>();
  auto* cmd = stat_cmd->add_subcommand("report", "Print the counts of a stat record stream (sonde's or perf's)");
  cmd->add_option("-i,--input", a->input, kInputHelp);
  add_aggregation_flags(cmd, *a);
  cmd->callback([a] {
    std::setlocale(LC_NUMERIC, "");
    stat::PrintConfig p = print_config(*a);
    stat::AggrMode mode = stat::AggrMode::Global;
    bool override = a->no_aggr || a->per_core || a->per_socket || a->per_die || a->per_node || a->per_thread;
    if (a->no_aggr) mode = stat::AggrMode::None;
    if (a->per_core) mode = stat::AggrMode::Core;
    if (a->per_die) mode = stat::AggrMode::Die;
    if (a->per_socket) mode = stat::AggrMode::Socket;
    if (a->per_node) mode = stat::AggrMode::Node;
    if (a->per_thread) mode = stat::AggrMode::Thread;
    stat::report_stat(a->input.empty() ? default_recording() : a->input, p, override ? &mode : nullptr, stderr);
  });
}

}  // namespace

void register_stat(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<StatArgs>();
  auto* cmd = app.add_subcommand("stat", "Count events (perf stat): default set, -e lists, -I, -r, -x, -j");
  add_counting_options(cmd, *a);
  cmd->add_option("-o,--output", a->output, "Write the counts to FILE instead of standard error");
  register_stat_record(cmd, exit_code);
  register_stat_report(cmd);
  cmd->require_subcommand(0, 1);
  // No footer here: the man page generator reads every line after
  // "Subcommands:" as a subcommand. Exit statuses: docs/stat.md.
  cmd->callback([a, cmd, &exit_code] {
    if (cmd->get_subcommands().empty()) run(*a, *cmd, false, exit_code);
  });
}

}  // namespace sonde::cli
