// sonde sched: perf sched's recorder and views (docs/trace.md).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <utility>

#include "commands.h"
#include "process_args.h"
#include "reading_options.h"
#include "record/file_mode_record.h"
#include "sched/sched_latency.h"
#include "sched/sched_map.h"
#include "sched/sched_record.h"
#include "sched/sched_timehist.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct SchedArgs {
  bool no_inherit = false;
  std::string input, output = "sonde.data";
  std::vector<std::string> command, rest;
};

// `sched script` is `script` over the same file: exec'd so that every
// option of `sonde script` is there.
[[noreturn]] void exec_script(const SchedArgs& a) {
  std::vector<std::string> args{"sonde", "script"};
  if (!a.input.empty()) args.insert(args.end(), {"-i", a.input});
  args.insert(args.end(), a.rest.begin(), a.rest.end());
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  throw_runtime("cannot run sonde script: {}", errno_text(errno));
}

}  // namespace

void register_sched(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("sched", "Scheduler analysis as perf sched: record, latency, timehist, map, script");
  cmd->require_subcommand(1);

  auto rec = std::make_shared<SchedArgs>();
  auto* record = cmd->add_subcommand("record", "Record the scheduler tracepoints system-wide (as perf sched record)");
  record->add_option("-o,--output", rec->output, "Output file, - for standard output")->capture_default_str();
  record->add_flag("--no-inherit", rec->no_inherit, "Do not follow the command's child tasks (as perf)");
  record->add_option("command", rec->command, "Workload: [--] CMD [ARGS...]; without one, until Ctrl-C");
  record->positionals_at_end();
  record->callback([rec, &exit_code] {
    auto options = sched::sched_record_options(rec->output, rec->command, own_cmdline());
    options.inherit = !rec->no_inherit;
    exit_code = record::record_file_mode(std::move(options)).exit_status;
  });

  auto lat = std::make_shared<SchedArgs>();
  auto* latency = cmd->add_subcommand("latency", "Per task: run time, switches, average and maximum scheduling delay");
  latency->add_option("-i,--input", lat->input, "Recording to read (default: sonde.data, or perf.data)");
  latency->callback([lat] {
    std::string text = sched::latency_report(lat->input.empty() ? default_recording() : lat->input);
    std::fwrite(text.data(), 1, text.size(), stdout);
  });

  auto th = std::make_shared<sched::TimehistOptions>();
  auto th_input = std::make_shared<std::string>();
  auto* timehist = cmd->add_subcommand("timehist", "One line per context switch: wait time, scheduling delay, run time");
  timehist->add_option("-i,--input", *th_input, "Recording to read (default: sonde.data, or perf.data)");
  timehist->add_flag("-w,--wakeups", th->wakeups, "Also show the wakeups");
  timehist->add_flag("--state", th->state, "Show the task's state when it was switched out");
  timehist->add_flag("-s,--summary", th->summary_only, "Only the per-task summary");
  timehist->add_flag("-S,--with-summary", th->summary, "The lines and the summary");
  timehist->callback([th, th_input] {
    sched::timehist_report(th_input->empty() ? default_recording() : *th_input, *th);
  });

  auto map_input = std::make_shared<std::string>();
  auto* map = cmd->add_subcommand("map", "One column per CPU: which task runs there after each context switch");
  map->add_option("-i,--input", *map_input, "Recording to read (default: sonde.data, or perf.data)");
  map->callback([map_input] { sched::map_report(map_input->empty() ? default_recording() : *map_input); });

  auto scr = std::make_shared<SchedArgs>();
  auto* script = cmd->add_subcommand("script", "The recording's events, one per line (sonde script)");
  script->add_option("-i,--input", scr->input, "Recording to read");
  script->add_option("args", scr->rest, "Further sonde script options");
  script->allow_extras();
  script->callback([scr] {
    auto a = *scr;
    exec_script(a);
  });
}

}  // namespace sonde::cli
