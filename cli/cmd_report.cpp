// sonde report: perf report's --stdio table (or JSON) from a recording.
#include <cstdio>
#include <regex>

#include "analysis/directory_reader.h"
#include "commands.h"
#include "reading_options.h"
#include "analysis/header_facts.h"
#include "analysis/profile_builder.h"
#include "analysis/reading_outcome.h"
#include "analysis/sample_times.h"
#include "format/features.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "format/topology_text.h"
#include "fleet/fleet_query.h"
#include "fleet/store_url.h"
#include "report/call_graph_options.h"
#include "report/record_stats.h"
#include "report/hist.h"
#include "report/report_fields.h"
#include "report/report_table.h"
#include "report/wall_report.h"
#include "stat/thread_counts.h"
#include "script/raw_dump.h"
#include "symbol/symbolizer.h"
#include "hierarchy/hierarchy_report.h"
#include "tasks/task_tree.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct ReportArgs {
  std::string input;
  bool no_children = false;
  std::optional<std::string> sort, fields;
  bool show_samples = false, cpu_utilization = false, total_period = false;
  std::optional<double> percent_limit;
  std::vector<std::string> comms, dsos, symbol_list;
  std::vector<uint32_t> pids, tids;
  std::optional<std::string> graph;  // -g [SPEC]
  bool inverted = false;             // -G
  size_t max_stack = 0;
  std::string format = "text";
  bool inline_frames = false;
  SymbolArgs symbols;
  bool stdio = false;
  bool threads = false, header = false, header_only = false, stats = false, quiet = false, verbose = false;
  std::string vmlinux, symbol_filter, ignore_callees, parent, time;
  bool parent_given = false;
  bool wall = false;
  bool show_info = false;  // -I
  bool task = false;       // --task
  bool hierarchy = false;  // --hierarchy
  bool strict = false;     // --strict
  bool dump_raw = false;   // -D
  std::string pretty = "normal";  // --pretty: -T's table style
  std::string field_sep;          // -t
  std::optional<std::string> cpus;  // -C
};

// --header-only: the header facts; with -I (perf's) HEADER_CPU_TOPOLOGY in
// full instead of "info available, use -I to display" (the other
// topologies keep that line). One reading: the input may be a pipe.
std::string header_only_text(const std::string& input, bool show_info) {
  auto reader = analysis::open_input(input);
  format::Session session;
  format::RecordView rec;
  while (reader->next(rec))
    if (!session.observe(rec)) break;
  std::string facts = analysis::header_facts_text(session, *reader, input);
  const std::string marker = "# CPU_TOPOLOGY info available, use -I to display\n";
  size_t at = facts.find(marker);
  if (!show_info || at == std::string::npos) return facts;
  auto cpus = format::decode_nr_cpus_available(session.feature(format::kFeatNrCpus));
  auto text = format::cpu_topology_text(session.feature(format::kFeatCpuTopology), cpus.value_or(0));
  return text ? facts.replace(at, marker.size(), *text) : facts;
}

std::shared_ptr<const std::regex> compile(const std::string& pattern, const char* option) {
  try {
    return std::make_shared<const std::regex>(pattern, std::regex::extended | std::regex::nosubs);
  } catch (const std::regex_error& e) {
    throw_usage("{} '{}': not a regular expression ({})", option, pattern, e.what());
  }
}

// Every option checked, nothing read yet.
report::ReportOptions report_options(const ReportArgs& a) {
  report::ReportOptions ro;
  if (a.format != "text" && a.format != "json") throw_usage("unknown --format '{}' (text or json)", a.format);
  if (a.percent_limit && (*a.percent_limit < 0 || *a.percent_limit > 100))
    throw_usage("--percent-limit must be within 0..100");
  ro.children = !a.no_children;
  ro.layout = report::layout_fields({a.fields, a.sort, ro.children, a.show_samples, a.cpu_utilization, a.total_period});
  ro.json = a.format == "json";
  ro.percent_limit = a.percent_limit.value_or(0);
  ro.call_graph = a.graph || a.inverted;
  if (a.graph) ro.graph = report::parse_call_graph(*a.graph);
  if (ro.graph.mode == report::GraphMode::kNone) ro.call_graph = false;
  // perf: -G is caller order; without an order, caller with Children and
  // callee without (perf's default display).
  if (a.inverted) ro.graph.order = report::GraphOrder::kCaller;
  if (ro.graph.order == report::GraphOrder::kDefault)
    ro.graph.order = ro.children ? report::GraphOrder::kCaller : report::GraphOrder::kCallee;
  // perf: --percent-limit is the call graphs' threshold too.
  if (a.percent_limit && !ro.graph.threshold_set) ro.graph.threshold = *a.percent_limit;
  ro.sort_starts_with_sym = !a.fields && a.sort && a.sort->starts_with("sym");
  ro.quiet = a.quiet;
  ro.verbose = a.verbose;
  ro.comms = a.comms, ro.dsos = a.dsos, ro.pids = a.pids, ro.tids = a.tids;
  if (!a.symbol_list.empty()) ro.symbols = report::perf_symbol_names(a.symbol_list);
  ro.symbol_filter = a.symbol_filter;
  ro.parent = compile(a.parent_given ? a.parent : "^sys_|^do_page_fault", "--parent");
  if (!a.ignore_callees.empty()) ro.ignore_callees = compile(a.ignore_callees, "--ignore-callees");
  ro.time_text = a.time;
  ro.field_sep = a.field_sep;
  return ro;
}

void write_out(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw_runtime("cannot write the report");
}

// A fleet store as input (docs/fleet.md): the store aggregates, the same
// table is printed. Options that need the recording's records do not apply.
void report_store(const ReportArgs& a, const report::ReportOptions& ro, const std::string& input) {
  if (a.header || a.stats || !a.time.empty() || a.wall || a.inline_frames || a.cpus)
    throw_usage("report: --header, --header-only, --stats, --time, -C, --wall and --inline need a recording, not a store "
                "(use since=/until= in the URL)");
  auto profile = fleet::load_fleet_profile(input);
  report::write_report(profile, ro, stdout);
  if (std::fflush(stdout) != 0) throw_runtime("cannot write the report");
  if (profile.samples.empty() && !ro.json) std::fprintf(stderr, "sonde report: the store has no samples that match\n");
  for (const auto& note : profile.notes) std::fprintf(stderr, "sonde report: %s\n", note.c_str());
}

void run_report(const ReportArgs& a) {
  report::ReportOptions ro = report_options(a);
  check_elf_argument("-k", a.vmlinux, "a vmlinux with symbols");
  analysis::TimeSpec time;
  if (!a.time.empty()) time = analysis::TimeSpec::parse(a.time);
  const std::string input = a.input.empty() ? default_recording() : a.input;

  if (a.header_only && fleet::is_store_url(input)) throw_usage("report: --header-only needs a recording, not a store");
  if (a.header_only) return write_out(header_only_text(input, a.show_info));
  if (a.dump_raw) {
    if (fleet::is_store_url(input)) throw_usage("report: -D needs a recording, not a store");
    // perf report -D: its header line, script -D's dump, then --stats' counts.
    write_out("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
    script::dump_raw_input(input, stdout);
    auto reader = analysis::open_input(input);
    write_out(report::format_record_stats(report::count_records(*reader)));
    return check_strict(a.strict, analysis::outcome_of(*reader), input);
  }
  if (a.task) {
    if (fleet::is_store_url(input)) throw_usage("report: --task needs a recording, not a store");
    auto reader = analysis::open_input(input);
    write_out(tasks::format_task_tree(tasks::read_tasks(*reader)));
    analysis::conclude_reading(analysis::outcome_of(*reader), input);
    return check_strict(a.strict, analysis::outcome_of(*reader), input);
  }
  if (a.stats && !fleet::is_store_url(input)) {
    auto reader = analysis::open_input(input);
    report::RecordStats st = report::count_records(*reader);
    write_out(report::format_record_stats(st));
    analysis::conclude_reading(analysis::outcome_of(*reader), input);
    return check_strict(a.strict, analysis::outcome_of(*reader), input);
  }

  if (fleet::is_store_url(input)) return report_store(a, ro, input);

  SymbolizerOptions so = a.symbols.options(input);
  so.vmlinux_path = a.vmlinux;
  Symbolizer symbolizer(so);
  analysis::ProfileOptions po;
  po.filter.time = analysis::resolve_time_ranges(time, input);
  if (a.cpus) po.filter.cpus = cpu_filter(*a.cpus);
  po.max_stack = a.max_stack;
  po.split_by_cpu = ro.layout.has(report::Field::kCpu) || ro.layout.has(report::Field::kSocket) ||
                    ro.layout.has(report::Field::kCore);
  po.inline_frames = a.inline_frames;
  po.srclines = a.inline_frames || ro.layout.has(report::Field::kSrcline) ||
                (ro.call_graph && ro.graph.key != report::GraphKey::kFunction);
  if (a.header) po.header_facts_of = input;
  po.progress = progress_printer("report");
  stat::ThreadCounts thread_counts;  // -T: the READ records, in the stat model
  if (a.threads)
    po.on_record = [&](const format::RecordView& r, const format::Session& s) { thread_counts.add(r, s); };
  auto reader = analysis::open_input(input);
  auto profile = analysis::build_profile(*reader, symbolizer, po);
  if (a.threads) ro.thread_counts = stat::format_thread_counts(thread_counts, a.pretty == "raw");
  clear_progress();
  if ((ro.layout.has(report::Field::kSocket) || ro.layout.has(report::Field::kCore)) && profile.cpus.empty())
    throw_usage("--sort socket/core: {} has no CPU topology (perf's HEADER_CPU_TOPOLOGY)", input);
  ro.header = profile.header_facts;
  if (a.hierarchy) {
    write_out(hierarchy::format_hierarchy(profile));
  } else if (a.wall) {
    report::WallOptions wo;
    if (a.percent_limit) wo.percent_limit = *a.percent_limit;
    report::write_wall_report(profile, wo, stdout);
  } else {
    report::write_report(profile, ro, stdout);
  }
  if (std::fflush(stdout) != 0) throw_runtime("cannot write the report");
  if (profile.samples.empty() && !ro.json) note("{} has no samples{}", input, a.time.empty() ? "" : " in --time's ranges");
  analysis::conclude_reading(profile.outcome, input);
  check_strict(a.strict, profile.outcome, input);
}

}  // namespace

void register_report(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Summarize a recording: where the samples went, by symbol (perf report)");
  cmd->add_option("-i,--input", a->input, kInputHelp);
  cmd->add_flag("--no-children", a->no_children, "Only the Self column (samples in the function itself)");
  cmd->add_flag("--children", [](int64_t) {}, "Children and Self columns (the default)");
  cmd->add_option("-s,--sort", a->sort,
                  "Sort keys (default comm,dso,sym): comm, pid, tid, dso, sym, srcline, parent, cpu, socket, core, "
                  "and the values overhead, overhead_sys, overhead_us, overhead_children, sample, period");
  cmd->add_option("-F,--fields", a->fields,
                  "Exactly these columns (values and keys, as --sort), or +a,b added to the default ones");
  cmd->add_flag("-n,--show-nr-samples", a->show_samples, "Show a Samples column");
  cmd->add_flag("--showcpuutilization", a->cpu_utilization,
                "sys and usr columns after the overhead: the shares sampled in the kernel and in user space, as perf");
  cmd->add_flag("--show-total-period", a->total_period, "Show a Period column (after Samples), as perf");
  cmd->add_option("--percent-limit", a->percent_limit, "Hide entries (and call-graph branches) below this percentage");
  cmd->add_option("-c,--comm,--comms", a->comms, "Only rows of these commands (percentages stay of the whole)")
      ->delimiter(',');
  cmd->add_option("-S,--symbols", a->symbol_list,
                  "Only rows of samples in these symbols (names; percentages stay of the whole). As perf 6.1, a hexadecimal "
                  "number matches nothing")
      ->delimiter(',');
  cmd->add_option("-C,--cpu", a->cpus,
                  "Only samples on these CPUs, as perf: 0,2-3 (the others are not counted: percentages are of these)");
  cmd->add_option("--pid", a->pids, "Only rows of these process ids")->delimiter(',');
  cmd->add_option("--tid", a->tids, "Only rows of these thread ids")->delimiter(',');
  cmd->add_option("-d,--dso,--dsos", a->dsos, "Only rows of samples in these objects (path or file name)")->delimiter(',');
  cmd->add_option("-g,--call-graph", a->graph,
                  "Call graphs, perf's -g: print type (graph, fractal, flat, folded, none), threshold, print limit, "
                  "order (caller, callee; default: perf's, caller with Children, callee without), key (function, "
                  "address, srcline), branch, value (percent, period, count)")
      ->expected(0, 1);
  cmd->add_flag("-G,--inverted", a->inverted, "Call graphs in caller order (root first), as perf's -G");
  cmd->add_option("--max-stack", a->max_stack, "Use at most this many frames of each call chain (0: all)");
  cmd->add_option("--format", a->format, "text or json")->capture_default_str();
  cmd->add_flag("--inline", a->inline_frames, "Expand inlined functions from DWARF");
  a->symbols.add_to(cmd);
  cmd->add_option("-t,--field-separator", a->field_sep,
                  "Separate the columns with this text instead of padding them (perf's -t; its first character "
                  "becomes '.' inside names)");
  cmd->add_flag("--stdio", a->stdio, "Accepted for perf compatibility (sonde always prints text)");
  cmd->add_flag("-T,--threads", a->threads, "Per-thread counts of a `record -s` recording (perf's table, printed last)");
  cmd->add_option("--pretty", a->pretty, "-T's table style: normal or raw (perf's)")
      ->check(CLI::IsMember({"normal", "raw"}));
  cmd->add_flag("--header", a->header, "First print the recording's header facts, as perf");
  cmd->add_flag("--header-only", a->header_only, "Print only the recording's header facts, as perf");
  cmd->add_flag("-I,--show-info", a->show_info, "With --header-only: the CPU topology in full, as perf's -I");
  cmd->add_flag("--strict", a->strict, kStrictHelp);
  cmd->add_flag("-D,--dump-raw-trace", a->dump_raw, "Every record: offset, size, bytes and fields (perf's -D, as script -D)");
  cmd->add_flag("--hierarchy", a->hierarchy,
                "Self overhead by command, then object, then symbol, each level under the one before (perf's --hierarchy)");
  cmd->add_flag("--task", a->task, "The recording's tasks as a tree (pid, tid, parent, comm), as perf's --task");
  cmd->add_flag("--stats", a->stats, "Only count the records of each type (and samples per event), as perf");
  cmd->add_flag("-q,--quiet", a->quiet, "Only the rows: no header lines, no notes or warnings");
  cmd->add_flag("-v,--verbose", a->verbose, "Objects by path, symbols with their address");
  cmd->add_option("-k,--vmlinux", a->vmlinux, "The kernel's symbols from this vmlinux (used when its build-id matches)");
  cmd->add_option("--symbol-filter", a->symbol_filter, "Only rows whose symbol contains this text");
  cmd->add_option("--ignore-callees", a->ignore_callees,
                  "A sample in a callee of a function matching this regex counts in that function");
  cmd->add_option("-p,--parent", a->parent, "The regex --sort parent looks for (default ^sys_|^do_page_fault)")
      ->each([a](const std::string&) { a->parent_given = true; });
  cmd->add_option("--time", a->time,
                  "Only samples in these ranges, as perf: START,STOP in seconds, several 'A,B C,D', or percentages "
                  "10%/2, 0%-10%, 25%");
  cmd->add_flag("--wall", a->wall,
                "Wall-clock time per thread: on-CPU (cpu-clock) and off-CPU (offcpu-time, offcpu-time:preempt) "
                "nanoseconds in one table per thread, by function (record with -e cpu-clock --off-cpu; "
                "--percent-limit hides functions, default 1)");
  cmd->callback([a] {
    set_diagnostics_quiet(a->quiet);  // as perf report -q: no warnings or messages either
    run_report(*a);
  });
}

}  // namespace sonde::cli
