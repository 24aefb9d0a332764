// sonde annotate: cost per instruction and per source line (perf annotate --stdio).
#include <cstdio>

#include "annotate/annotate.h"
#include "commands.h"
#include "reading_options.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct AnnotateArgs {
  std::string input;
  std::vector<std::string> symbols, symbol_options, dsos;
  bool stdio = false, stdio2 = false;
  bool print_line = false, full_paths = false, source = true, asm_raw = false;
  bool skip_missing = false, no_inclusive = false, show_samples = false;
  std::string percent_type = "local-period";
  double percent_limit = 0;
  std::string style = "att";
  std::string objdump, vmlinux, kcore;
  SymbolArgs symbols_from;
};

void run(const AnnotateArgs& args) {
  annotate::AnnotateOptions o;  // every option checked before the input is opened
  o.print.percent_type = annotate::parse_percent_type(args.percent_type);
  if (args.style == "att") o.syntax = annotate::Syntax::kAtt;
  else if (args.style == "intel") o.syntax = annotate::Syntax::kIntel;
  else throw_usage("-M: '{}' is not att or intel", args.style);
  if (args.percent_limit < 0 || args.percent_limit > 100) throw_usage("--percent-limit: {} is not 0-100", args.percent_limit);
  o.input = args.input.empty() ? default_recording() : args.input;
  o.symbols = args.symbols;
  o.symbols.insert(o.symbols.end(), args.symbol_options.begin(), args.symbol_options.end());
  o.dsos = args.dsos;
  o.print.print_lines = args.print_line;
  o.print.full_paths = args.full_paths;
  o.print.source = args.source;
  o.print.asm_raw = args.asm_raw;
  o.print.show_samples = args.show_samples;
  o.percent_limit = args.percent_limit;
  o.skip_missing = args.skip_missing;
  o.inclusive = !args.no_inclusive;
  check_elf_argument("-k", args.vmlinux, "a vmlinux with symbols");
  check_elf_argument("--kcore", args.kcore, "a copy of /proc/kcore");
  o.symbolizer = args.symbols_from.options(o.input);
  o.symbolizer.vmlinux_path = args.vmlinux;
  if (!args.kcore.empty()) o.code.kcore_path = args.kcore, o.code.kcore_given = true;
  std::vector<std::string> notes;
  try {
    annotate::run_annotate(o, stdout, notes);
  } catch (...) {
    std::fflush(stdout);
    for (const auto& n : notes) std::fprintf(stderr, "sonde annotate: %s\n", n.c_str());
    throw;
  }
  std::fflush(stdout);
  for (const auto& n : notes) std::fprintf(stderr, "sonde annotate: %s\n", n.c_str());
}

}  // namespace

void register_annotate(CLI::App& app, int& /*exit_code*/) {
  auto args = std::make_shared<AnnotateArgs>();
  auto* cmd = app.add_subcommand("annotate", "Cost per instruction and source line of the hottest (or named) symbols");
  cmd->add_option("symbols", args->symbols, "Symbols to annotate (default: every symbol above --percent-limit)");
  cmd->add_option("-i,--input", args->input, kInputHelp);
  // One value per -s/-d (a comma list for -d): a word after them is a positional symbol.
  cmd->add_option("-s,--symbol", args->symbol_options, "Annotate this symbol (as the positional SYMBOL)")
      ->allow_extra_args(false);
  cmd->add_option("-d,--dsos", args->dsos, "Only samples in these objects (path or file name)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--stdio", args->stdio, "Text output (the default and only one)");
  cmd->add_flag("--stdio2", args->stdio2, "Accepted for perf's scripts: the --stdio layout");
  cmd->add_flag("-l,--print-line", args->print_line, "First a summary of the cost per source line (inlined copies added)");
  cmd->add_flag("-P,--full-paths", args->full_paths, "Full paths of objects and source files");
  cmd->add_flag("--source,!--no-source", args->source, "Interleave source lines (default) or not");
  cmd->add_flag("--asm-raw", args->asm_raw, "Show the instruction bytes");
  cmd->add_flag("-n,--show-nr-samples", args->show_samples, "Sample counts instead of percentages");
  cmd->add_flag("--skip-missing", args->skip_missing, "Skip symbols that cannot be annotated, without a note");
  cmd->add_flag("--no-inclusive", args->no_inclusive, "Do not walk call chains for the call instructions' inclusive cost");
  cmd->add_option("--percent-type", args->percent_type,
                  "local-period (default), global-period, local-hits or global-hits");
  cmd->add_option("--percent-limit", args->percent_limit, "Only symbols with at least this share of the event's period");
  cmd->add_option("-M,--disassembler-style", args->style, "att (default) or intel");
  cmd->add_option("--objdump", args->objdump, "Accepted for perf's scripts; sonde disassembles with capstone");
  cmd->add_option("-k,--vmlinux", args->vmlinux, "Kernel code and symbols from this vmlinux (its build-id must match)");
  cmd->add_option("--kcore", args->kcore,
                  "Kernel code from this copy of /proc/kcore (default: /proc/kcore, when the recorded kernel runs)");
  args->symbols_from.add_to(cmd);
  cmd->callback([args] { run(*args); });
}

}  // namespace sonde::cli
