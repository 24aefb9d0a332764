// sonde convert: a recording to another tool's format (pprof, folded stacks,
// speedscope, HTML flame graph, file-mode perf.data). Every argument is
// checked before the input is read, and the output is written to a
// temporary file renamed into place on success, so a failed conversion never
// leaves a partial output file behind.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/directory_reader.h"
#include "commands.h"
#include "reading_options.h"
#include "convert/convert.h"
#include "format/stream_reader.h"
#include "analysis/profile_builder.h"
#include "analysis/sample_times.h"
#include "symbol/symbolizer.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::cli {

namespace {

struct ConvertArgs {
  std::string input = "sonde.data";
  std::string output;
  std::string to;
  std::vector<uint32_t> pids, tids;
  std::vector<std::string> comms, events;
  std::string time;
  SymbolArgs symbols;
  bool inline_frames = false;
  size_t max_stack = 0;
  bool comm_frame = false, pid_frame = false;
};

void check_output_dir(const std::string& out) {
  size_t slash = out.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : out.substr(0, slash));
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw_runtime("cannot write {}: no folder {}", out, dir);
  if (::access(dir.c_str(), W_OK) != 0) throw_runtime("cannot write {}: {}", out, errno_text(errno));
  if (::stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw_usage("-o {}: is a folder", out);
}

void export_profile(convert::Format fmt, const analysis::Profile& p, const ConvertArgs& a, std::ostream& out) {
  std::string name = a.input == "-" ? "stdin" : a.input.substr(a.input.rfind('/') + 1);
  switch (fmt) {
    case convert::Format::kPprof:
      convert::write_pprof(p, out);
      break;
    case convert::Format::kFolded: {
      convert::FoldedOptions fo;
      fo.comm_frame = a.comm_frame;
      fo.pid_frame = a.pid_frame;
      convert::write_folded(p, fo, out);
      break;
    }
    case convert::Format::kSpeedscope:
      convert::write_speedscope(p, {name}, out);
      break;
    case convert::Format::kHtml: {
      convert::HtmlOptions ho;
      ho.title = name + (p.events.empty() ? "" : " (" + p.events[0].name + ")");
      convert::write_html(p, ho, out);
      break;
    }
    case convert::Format::kPerf:
      break;  // rejected in run_convert
  }
}

void run_convert(const ConvertArgs& a) {
  // 1. Arguments, all of them, before touching the input.
  if (a.to.empty()) throw_usage("convert: --to FORMAT is required ({})", convert::format_names());
  auto fmt = convert::parse_format(a.to);
  if (!fmt) throw_usage("convert: unknown format '{}' (expected one of: {})", a.to, convert::format_names());
  if (a.output.empty()) throw_usage("convert: -o OUT is required (- for standard output)");
  if (*fmt == convert::Format::kPerf && a.output == "-")
    throw_usage("convert: --to perf needs an output file (file mode is not a stream)");
  if (*fmt == convert::Format::kPerf && (a.inline_frames || a.symbols.no_demangle || a.max_stack))
    throw_usage("convert: --inline, --no-demangle and --max-stack do not apply to --to perf (it copies the records)");
  if ((a.comm_frame || a.pid_frame) && *fmt != convert::Format::kFolded)
    throw_usage("convert: --comm-frame and --pid-frame apply to --to folded only");
  if (a.output != "-" && a.input != "-" && a.output == a.input) throw_usage("convert: -o must differ from -i");
  analysis::ProfileOptions po;
  po.filter.pids = a.pids;
  po.filter.tids = a.tids;
  po.filter.comms = a.comms;
  po.filter.events = a.events;
  analysis::TimeSpec time;
  if (!a.time.empty()) time = analysis::TimeSpec::parse(a.time);
  po.max_stack = a.max_stack;
  po.inline_frames = a.inline_frames;
  po.srclines = a.inline_frames;
  if (a.output != "-") check_output_dir(a.output);
  po.filter.time = analysis::resolve_time_ranges(time, a.input);

  // perf file mode copies records: no Profile, no symbolization.
  if (*fmt == convert::Format::kPerf) {
    auto reader = analysis::open_input(a.input);
    convert::write_perf_file(*reader, po.filter, a.output);
    if (reader->truncated_bytes())
      std::fprintf(stderr, "sonde convert: the recording ends with an incomplete record; ignored its last %llu bytes\n",
                   (unsigned long long)reader->truncated_bytes());
    return;
  }

  // 2. Read and symbolize.
  Symbolizer symbolizer(a.symbols.options(a.input));
  po.progress = progress_printer("convert");
  auto reader = analysis::open_input(a.input);
  auto profile = analysis::build_profile(*reader, symbolizer, po);
  clear_progress();
  if (profile.samples.empty())
    throw_runtime("convert: no samples in {}{}", a.input,
                  a.pids.empty() && a.tids.empty() && a.comms.empty() && a.events.empty() && a.time.empty()
                      ? ""
                      : " match the filters");
  if (profile.truncated_bytes)
    std::fprintf(stderr, "sonde convert: the recording ends with an incomplete record; ignored its last %llu bytes\n",
                 (unsigned long long)profile.truncated_bytes);
  for (const auto& note : profile.notes) std::fprintf(stderr, "sonde convert: %s\n", note.c_str());
  if (profile.events.size() > 1 && (*fmt == convert::Format::kFolded || *fmt == convert::Format::kHtml))
    std::fprintf(stderr, "sonde convert: %zu events recorded; %s shows '%s' only (choose with --event)\n",
                 profile.events.size(), a.to.c_str(), profile.events[0].name.c_str());

  // 3. Write.
  if (a.output == "-") {
    export_profile(*fmt, profile, a, std::cout);
    std::cout.flush();
    if (!std::cout) throw_runtime("cannot write to standard output");
    return;
  }
  // Removed unless committed, also when a signal ends the conversion.
  AtomicFile out(a.output, {.temp_name = AtomicFile::TempName::Hidden, .remove_on_signal = true});
  export_profile(*fmt, profile, a, out.stream());
  out.commit();
}

}  // namespace

void register_convert(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand("convert", "Convert a recording to pprof, folded stacks, speedscope or an HTML flame graph");
  cmd->add_option("-i,--input", a->input, "Recording to read (file or pipe mode), - for standard input")->capture_default_str();
  cmd->add_option("--to", a->to, "Output format: " + convert::format_names());
  cmd->add_option("-o,--output", a->output, "Output file, - for standard output");
  cmd->add_option("--pid", a->pids, "Only these process ids")->delimiter(',');
  cmd->add_option("--tid", a->tids, "Only these thread ids")->delimiter(',');
  cmd->add_option("--comm", a->comms, "Only these commands")->delimiter(',');
  cmd->add_option("--event", a->events, "Only these events (names as sonde script prints them)")->delimiter(',');
  cmd->add_option("--time", a->time, "Only samples in these ranges, as perf: START,STOP in seconds as script prints them, "
                  "several 'A,B C,D', or percentages 10%/2, 0%-10%, 25%");
  cmd->add_option("--max-stack", a->max_stack, "Use at most this many frames of each call chain (0: all)");
  cmd->add_flag("--inline", a->inline_frames, "Expand inlined functions and add source lines from DWARF");
  a->symbols.add_to(cmd);
  cmd->add_flag("--comm-frame", a->comm_frame, "folded: start each stack with the command name");
  cmd->add_flag("--pid-frame", a->pid_frame, "folded: start each stack with COMM-PID");
  cmd->callback([a] { run_convert(*a); });
}

}  // namespace sonde::cli
