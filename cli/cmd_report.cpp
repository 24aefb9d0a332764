// sonde report: the perf-report-style table from a recording.
#include <cstdio>

#include "commands.h"
#include "reading_options.h"
#include "format/stream_reader.h"
#include "analysis/profile_builder.h"
#include "report/report_table.h"
#include "symbol/symbolizer.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct ReportArgs {
  std::string input;
  bool no_children = false;
  std::string sort = "comm,dso,sym";
  bool show_samples = false;
  double percent_limit = 0;
  std::vector<std::string> comms, dsos;
  std::vector<uint32_t> pids, tids;
  bool graph = false;
  bool callee = false;
  size_t max_stack = 0;
  std::string format = "text";
  bool inline_frames = false;
  SymbolArgs symbols;
  bool stdio = false;
};

void run_report(const ReportArgs& a) {
  report::ReportOptions ro;
  ro.sort = report::parse_sort_keys(a.sort);
  if (a.format != "text" && a.format != "json") throw_usage("unknown --format '{}' (text or json)", a.format);
  if (a.percent_limit < 0 || a.percent_limit > 100) throw_usage("--percent-limit must be within 0..100");
  ro.json = a.format == "json";
  ro.children = !a.no_children;
  ro.show_samples = a.show_samples;
  ro.percent_limit = a.percent_limit;
  ro.dsos = a.dsos;
  ro.call_graph = a.graph || a.callee;
  ro.caller_order = !a.callee;

  Symbolizer symbolizer(a.symbols.options());

  analysis::ProfileOptions po;
  po.filter.comms = a.comms;
  po.filter.pids = a.pids;
  po.filter.tids = a.tids;
  po.max_stack = a.max_stack;
  po.split_by_cpu = false;  // the table has no cpu key
  po.inline_frames = a.inline_frames;
  po.srclines = a.inline_frames || a.sort.find("srcline") != std::string::npos;
  po.progress = progress_printer("report");
  auto reader = format::open_recording(a.input.empty() ? default_recording() : a.input);
  auto profile = analysis::build_profile(*reader, symbolizer, po);
  clear_progress();
  report::write_report(profile, ro, stdout);
  if (std::fflush(stdout) != 0) throw_runtime("cannot write the report");
  if (profile.truncated_bytes)
    std::fprintf(stderr, "sonde report: the recording ends with an incomplete record; ignored its last %llu bytes\n",
                 (unsigned long long)profile.truncated_bytes);
}

}  // namespace

void register_report(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Summarize a recording: where the samples went, by symbol");
  cmd->add_option("-i,--input", a->input, kInputHelp);
  cmd->add_flag("--no-children", a->no_children, "Only the Self column (samples in the function itself)");
  cmd->add_flag("--children", [](int64_t) {}, "Children and Self columns (the default)");
  cmd->add_option("-s,--sort", a->sort, "Sort keys: comm,pid,tid,dso,sym,srcline")->capture_default_str();
  cmd->add_flag("-n,--show-nr-samples", a->show_samples, "Show a Samples column");
  cmd->add_option("--percent-limit", a->percent_limit, "Hide entries below this percentage");
  cmd->add_option("--comm", a->comms, "Only these commands")->delimiter(',');
  cmd->add_option("--pid", a->pids, "Only these process ids")->delimiter(',');
  cmd->add_option("--tid", a->tids, "Only these thread ids")->delimiter(',');
  cmd->add_option("-d,--dso,--dsos", a->dsos, "Only entries in these objects (path or file name)")->delimiter(',');
  cmd->add_flag("-g,--call-graph", a->graph, "Show call-graph trees, callers first (root to the entry)");
  cmd->add_flag("-G,--callee", a->callee, "Show call-graph trees, the entry first (toward its callers)");
  cmd->add_option("--max-stack", a->max_stack, "Use at most this many frames of each call chain (0: all)");
  cmd->add_option("--format", a->format, "text or json")->capture_default_str();
  cmd->add_flag("--inline", a->inline_frames, "Expand inlined functions from DWARF");
  a->symbols.add_to(cmd);
  cmd->add_flag("--stdio", a->stdio, "Accepted for perf compatibility (sonde always prints text)");
  cmd->callback([a] { run_report(*a); });
}

}  // namespace sonde::cli
