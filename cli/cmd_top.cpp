// sonde top: CLI11 options -> top::TopOptions -> top::run_top(). Exit codes:
// 0 after q, Ctrl-C or --iterations; 2 for malformed options (-d, -F,
// --iterations, -p, -e syntax); 1 when recording cannot start (no such
// process, event not supported).
#include <charconv>
#include <cmath>
#include <memory>

#include "commands.h"
#include "process_args.h"
#include "reading_options.h"
#include "report/report_table.h"
#include "top/top.h"
#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::cli {

namespace {

struct TopArgs {
  std::vector<std::string> events;
  std::string freq, delay = "1", iterations, pids, sort = "dso,sym", entries = "40";
  bool callchain = false, system_wide = false, stdio = false, children = false, no_children = false;
  SymbolArgs symbols;
};

uint64_t parse_count(const std::string& opt, const std::string& text, uint64_t min) {
  auto v = parse_uint<uint64_t>(text);
  if (!v || v.value < min) throw_usage("invalid {} '{}': expected an integer of at least {}", opt, text, min);
  return v.value;
}

double parse_delay(const std::string& text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0 || v > 86400)
    throw_usage("invalid -d '{}': the delay must be a number of seconds above 0 (e.g. 0.5)", text);
  return v;
}

top::TopOptions top_options(const TopArgs& a) {
  top::TopOptions o;
  o.view.delay_seconds = parse_delay(a.delay);
  if (!a.iterations.empty()) o.iterations = parse_count("--iterations", a.iterations, 1);
  o.view.stdio_entries = parse_count("-E", a.entries, 1);
  o.view.sort = a.sort;
  if (a.children && a.no_children) throw_usage("--children and --no-children cannot be used together");
  // Like perf top: with call chains, children first.
  o.view.children = a.children || (a.callchain && !a.no_children);
  report::layout_fields({std::nullopt, a.sort, o.view.children, false});  // an unknown key is a usage error now
  o.record.events = a.events;
  if (!a.freq.empty()) o.record.freq = parse_count("-F", a.freq, 1);
  o.record.callchain = a.callchain;
  if (!a.pids.empty()) o.record.pids = parse_pids("-p", a.pids);
  o.record.system_wide = o.record.pids.empty();
  o.record.quiet = true;
  o.record.version = "sonde " SONDE_VERSION;
  o.record.cmdline = {"sonde", "top"};
  o.symbols = a.symbols.options("");  // live: the JIT files are where the process wrote them
  o.stdio = a.stdio;

  std::string events;
  for (const auto& e : a.events) { events += events.empty() ? "" : ","; events += e; }
  o.view.event = events.empty() ? "cpu-clock" : events;
  o.view.rate = fmt::format("{} Hz", o.record.freq.value_or(4000));
  o.view.target = a.pids.empty() ? "all CPUs" : "pid " + a.pids;
  return o;
}

}  // namespace

void register_top(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TopArgs>();
  auto* cmd = app.add_subcommand("top", "Live view of the hottest functions, refreshed every -d seconds (perf top)");
  cmd->add_option("-e,--event", a->events, "Event(s), as sonde record's -e (default cpu-clock)")->allow_extra_args(false);
  cmd->add_option("-F,--freq", a->freq, "Sampling frequency in Hz (default 4000, as perf top)");
  cmd->add_flag("-g", a->callchain, "Record call chains (frame pointers): Children column, call graphs");
  cmd->add_option("-p,--pid", a->pids, "Only these processes PID[,PID...] (default: system-wide)");
  cmd->add_flag("-a,--all-cpus", a->system_wide, "System-wide (the default without -p)");
  cmd->add_option("-d,--delay", a->delay, "Seconds between refreshes, e.g. 0.5 (default 1)");
  cmd->add_option("--iterations", a->iterations, "Exit after this many refreshes");
  cmd->add_flag("--stdio", a->stdio, "Batch mode: print the table as text at each refresh");
  cmd->add_option("-E,--entries", a->entries, "Rows per table in --stdio mode (default 40)");
  cmd->add_option("-s,--sort", a->sort, "Sort keys: comm,pid,tid,dso,sym (default dso,sym, as perf top)");
  cmd->add_flag("--children", a->children, "Sort by children (the default with -g)");
  cmd->add_flag("--no-children", a->no_children, "Sort by self (the default without -g)");
  a->symbols.add_to(cmd);
  cmd->footer(
      "Keys: Up/Down or k/j move, Enter or g call graph, c children/self, t/p/d zoom into the thread/process/"
      "object of the selected row (again: zoom out), h or ? help, q quit. Each refresh shows the samples of the "
      "last interval. Exit status: 0 (q, Ctrl-C, --iterations), 2 for malformed options, 1 when recording cannot start.");
  cmd->callback([a, &exit_code] { exit_code = top::run_top(top_options(*a)); });
}

}  // namespace sonde::cli
