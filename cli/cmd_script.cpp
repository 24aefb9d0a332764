// sonde script: one line per sample, then its frames.
#include <cstdio>

#include "analysis/directory_reader.h"
#include "annotate/disassembler.h"
#include "commands.h"
#include "fleet/store_listing.h"
#include "fleet/store_url.h"
#include "reading_options.h"
#include "format/stream_reader.h"
#include "probe/sdt_format.h"
#include "analysis/header_facts.h"
#include "analysis/recording_walker.h"
#include "analysis/reading_outcome.h"
#include "analysis/sample_times.h"
#include "script/raw_dump.h"
#include "script/script_fields.h"
#include "script/script_printer.h"
#include "analysis/symbol_resolver.h"
#include "symbol/symbolizer.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct ScriptArgs {
  std::string input;
  bool no_symbols = false;
  bool build_ids = false;
  size_t max_stack = 0;
  bool inline_frames = false;
  std::string fields;
  bool hide_callchain = false;
  bool nanoseconds = false;
  bool dump_raw = false;
  bool header = false;
  bool show_mmap_events = false, show_task_events = false;
  std::vector<std::string> comms, symbols_shown;
  std::vector<uint32_t> pids, tids;
  std::string time;
  std::optional<std::string> cpus;  // -C
  SymbolArgs symbols;
  bool strict = false;
};

// -F insn: capstone (loaded now, as annotate loads it) tells where the
// sampled instruction ends.
script::InstructionLength instruction_length() {
  auto disassembler = std::make_shared<annotate::Disassembler>(annotate::Syntax::kAtt);
  return [disassembler](std::span<const uint8_t> bytes) -> size_t {
    auto insns = disassembler->disassemble(bytes, 0);
    return insns.empty() || insns[0].bad ? 0 : insns[0].size;
  };
}

// The store's rows, one entry each (fleet/store_listing.h). Options that
// need each sample or the recording's records are usage errors.
void script_store(const ScriptArgs& a, const std::string& url) {
  const std::pair<bool, const char*> per_sample[] = {
      {!a.fields.empty(), "-F"},       {a.no_symbols, "--no-symbols"},  {a.build_ids, "--build-ids"},
      {a.inline_frames, "--inline"},   {a.nanoseconds, "--ns"},         {a.dump_raw, "-D"},
      {a.header, "--header"},          {a.show_mmap_events, "--show-mmap-events"},
      {a.show_task_events, "--show-task-events"}, {!a.symbols_shown.empty(), "-S"}, {!a.time.empty(), "--time"},
      {!a.comms.empty(), "--comm (use the URL's comm=)"}, {!a.pids.empty(), "--pid"}, {!a.tids.empty(), "--tid"},
      {a.strict, "--strict"}, {a.cpus.has_value(), "-C"}};
  for (const auto& [given, name] : per_sample)
    if (given) throw_usage("script: {} needs a recording, not a store (the store keeps aggregates: docs/fleet.md)", name);
  fleet::print_store_listing(fleet::load_store_listing(url), a.max_stack, a.hide_callchain, stdout);
}

void run_script(const ScriptArgs& args) {
  // Options first: a usage error must not wait for (or half-print) the input.
  script::FieldSelection fields;
  if (!args.fields.empty()) {
    fields = script::parse_script_fields(args.fields);
    if (args.no_symbols || args.build_ids || args.inline_frames)
      throw_usage("-F cannot be combined with --no-symbols, --build-ids or --inline (select sym, symoff, dso)");
  } else if (args.hide_callchain) {
    fields = script::default_script_fields();  // perf's, each sample on one line
  }
  analysis::TimeSpec time;
  if (!args.time.empty()) time = analysis::TimeSpec::parse(args.time);
  const std::string input = args.input.empty() ? default_recording() : args.input;
  if (fleet::is_store_url(input)) return script_store(args, input);
  script::ScriptOptions opts;
  opts.filter.comms = args.comms;
  opts.filter.pids = args.pids;
  opts.filter.tids = args.tids;
  opts.filter.time = analysis::resolve_time_ranges(time, input);
  if (args.cpus) opts.filter.cpus = cpu_filter(*args.cpus);
  opts.symbols_shown = args.symbols_shown;
  if (args.dump_raw) {
    return script::dump_raw_input(input, stdout);
  }
  auto reader = analysis::open_input(input);
  Symbolizer symbolizer(args.symbols.options(input));
  analysis::RecordingWalker walker(*reader, analysis::dwarf_unwinding(symbolizer.options().cache_root));
  walker.set_jit_dirs(symbolizer.options().jit_dirs);
  opts.symbols = !args.no_symbols;
  opts.build_ids = args.build_ids;
  opts.max_stack = args.max_stack;
  opts.inline_frames = args.inline_frames;
  opts.fields = fields;
  if ((fields.other | fields.tracepoint) & script::kFieldInsn) opts.instruction_length = instruction_length();
  opts.hide_callchain = args.hide_callchain;
  opts.nanoseconds = args.nanoseconds;
  opts.file_mode = reader->file_mode();
  if (args.header) opts.header = [&] { return analysis::header_facts_text(walker.session(), *reader, input); };
  opts.show_mmap_events = args.show_mmap_events;
  opts.show_task_events = args.show_task_events;
  const bool symbolize = !args.no_symbols || !args.symbols_shown.empty();
  analysis::SymbolResolver resolver(symbolizer);
  script::ScriptPrinter printer(walker, symbolize ? &resolver : nullptr, opts, stdout);
  printer.set_extra_fields(probe::sdt_extra_fields);  // decoded SDT arguments
  // The kernel's symbols load on another thread from the moment its mapping
  // is read, instead of at the first kernel frame.
  auto on_record = [&](const format::RecordView& rec) {
    if (const analysis::Mapping* m = walker.space().last_added(); m && symbolize) resolver.prefetch(*m);
    printer.print_record(rec);
  };
  walker.run([&](const format::Sample& s) { printer.print(s); }, on_record);
  printer.flush();
  for (const auto& n : symbolizer.notes()) note(std::string_view(n));
  if (const analysis::DwarfUnwinder* u = walker.unwinder(); u && !u->note().empty()) note(std::string_view(u->note()));
  if (!walker.jit_note().empty()) note(std::string_view(walker.jit_note()));
  const analysis::ReadingOutcome outcome = analysis::outcome_of(walker.stats());
  analysis::conclude_reading(outcome, input);
  check_strict(args.strict, outcome, input);
}

}  // namespace

void register_script(CLI::App& app, int& /*exit_code*/) {
  auto args = std::make_shared<ScriptArgs>();
  auto* cmd = app.add_subcommand("script", "Print every sample of a recording with its call chain");
  cmd->add_option("-i,--input", args->input, kInputHelp);
  cmd->add_flag("--no-symbols", args->no_symbols, "Raw frames: address, dso+file offset and build-id");
  cmd->add_flag("--strict", args->strict, kStrictHelp);
  cmd->add_flag("--build-ids", args->build_ids, "Append each frame's build-id");
  cmd->add_option("--max-stack", args->max_stack, "Print at most this many frames per sample (0: all)");
  cmd->add_flag("--inline", args->inline_frames, "Also print the functions inlined at each frame (DWARF)");
  cmd->add_option("-F,--fields", args->fields,
                  "Print these fields as perf script -F does: comm,pid,tid,cpu,time,period,event,trace,ip,sym,symoff,"
                  "dso,srcline,srccode,insn (ip: the call chain below the line, if recorded; srcline: each frame's "
                  "file:line; srccode: the sampled source line; insn: the sampled instruction's bytes); +name,-name "
                  "add to or remove from perf's default fields");
  cmd->add_flag("-G,--hide-call-graph", args->hide_callchain,
                "Only the sampled address, on the sample's line (alone: perf's default fields)");
  cmd->add_flag("--ns", args->nanoseconds, "Print times in nanoseconds (9 decimals)");
  cmd->add_flag("-D,--dump-raw-trace", args->dump_raw,
                "Dump every record instead: offset, size, raw bytes and what it says (perf's -D layout, file order)");
  cmd->add_flag("--header", args->header, "First print the recording's header facts, as perf script --header");
  cmd->add_flag("--show-mmap-events", args->show_mmap_events, "Also print the MMAP and MMAP2 records, as perf script");
  cmd->add_flag("--show-task-events", args->show_task_events, "Also print the COMM, FORK and EXIT records, as perf script");
  cmd->add_option("-c,--comm,--comms", args->comms, "Only samples of these commands")->delimiter(',');
  cmd->add_option("--pid", args->pids, "Only samples of these process ids")->delimiter(',');
  cmd->add_option("--tid", args->tids, "Only samples of these thread ids")->delimiter(',');
  cmd->add_option("-C,--cpu", args->cpus, "Only samples (and side-band records) on these CPUs, as perf: 0,2-3");
  cmd->add_option("--time", args->time,
                  "Only samples in these ranges, as perf: START,STOP in seconds as printed (either may be empty), "
                  "several 'A,B C,D', or percentages 10%/2, 0%-10%, 25%");
  cmd->add_option("-S,--symbols", args->symbols_shown,
                  "Only samples whose sampled address is in one of these symbols (name, or start address 0x...)")
      ->delimiter(',');
  args->symbols.add_to(cmd);
  cmd->callback([args] { run_script(*args); });
}

}  // namespace sonde::cli
