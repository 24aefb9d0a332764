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
#include <optional>

#include <fmt/format.h>

#include "analysis/directory_reader.h"
#include "annotate/page_annotations.h"
#include "commands.h"
#include "fleet/fleet_query.h"
#include "fleet/store_url.h"
#include "reading_options.h"
#include "convert/convert.h"
#include "convert/perf_jit_maps.h"
#include "jit/jit_files.h"
#include "format/stream_reader.h"
#include "analysis/profile_builder.h"
#include "analysis/reading_outcome.h"
#include "analysis/sample_times.h"
#include "analysis/timeline.h"
#include "probe/sdt_format.h"
#include "symbol/symbolizer.h"
#include "util/atomic_file.h"
#include "util/diagnostics.h"
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
  size_t annotate_functions = 50;  // html: the annotate view's functions
  size_t max_stack = 0;
  bool comm_frame = false, pid_frame = false;
  std::string jit_maps;  // --jit-maps DIR (--to perf): where the perf maps of JIT code go
};

void check_output_dir(const std::string& out) {
  size_t slash = out.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : out.substr(0, slash));
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw_runtime("cannot write {}: no folder {}", out, dir);
  if (::access(dir.c_str(), W_OK) != 0) throw_runtime("cannot write {}: {}", out, errno_text(errno));
  if (::stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw_usage("-o {}: is a folder", out);
}

// perf names JIT frames from /tmp/perf-PID.map only (convert/perf_jit_maps.h).
void write_jit_maps(const ConvertArgs& a, const std::vector<std::string>& jitdumps) {
  const std::string dir = a.jit_maps.empty() ? jit::jit_dir_for(a.output) : a.jit_maps;
  convert::PerfJitMaps maps = convert::write_perf_jit_maps(jitdumps, a.input, dir);
  for (const auto& n : maps.notes) note(std::string_view(n));
  if (!maps.written.empty() && dir != "/tmp")
    note("{} perf maps of JIT code written to {}/: perf and Hotspot read them as /tmp/perf-PID.map (copy them "
         "there, or use --jit-maps /tmp)", maps.written.size(), dir);
}

bool has_filters(const ConvertArgs& a) {
  return !(a.pids.empty() && a.tids.empty() && a.comms.empty() && a.events.empty() && a.time.empty());
}

std::string no_samples_text(const ConvertArgs& a) {
  return fmt::format("no samples in {}{}", a.input, has_filters(a) ? " match the filters" : "");
}

void export_profile(convert::Format fmt, const analysis::Profile& p, const analysis::Timeline* timeline,
                    const ConvertArgs& a, const std::string& annotate_json, std::ostream& out) {
  std::string name = a.input == "-" ? "stdin" : a.input.substr(a.input.rfind('/') + 1);
  switch (fmt) {
    case convert::Format::kPprof:
      convert::write_pprof(p, out);
      break;
    case convert::Format::kOtlp:
      convert::write_otlp(p, out);
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
      ho.timeline = timeline;
      ho.annotate_json = annotate_json;
      if (p.samples.empty()) ho.empty_reason = no_samples_text(a);
      convert::write_html(p, ho, out);
      break;
    }
    case convert::Format::kPerf:
      break;  // rejected in run_convert
  }
}

void write_output(convert::Format fmt, const analysis::Profile& profile, const analysis::Timeline* timeline,
                  const ConvertArgs& a, const std::string& annotate_json) {
  if (a.output == "-") {
    export_profile(fmt, profile, timeline, a, annotate_json, std::cout);
    std::cout.flush();
    if (!std::cout) throw_runtime("cannot write to standard output");
    return;
  }
  // Removed unless committed, also when a signal ends the conversion.
  AtomicFile out(a.output, {.temp_name = AtomicFile::TempName::Hidden, .remove_on_signal = true});
  export_profile(fmt, profile, timeline, a, annotate_json, out.stream());
  out.commit();
}

// A fleet store as input (docs/fleet.md): its aggregates, no timeline and
// no annotate view (those need the recording's samples and binaries).
void convert_store(convert::Format fmt, const ConvertArgs& a) {
  if (fmt == convert::Format::kPerf) throw_usage("convert: --to perf needs a recording, not a store");
  if (!a.time.empty() || !a.pids.empty() || !a.tids.empty() || !a.comms.empty() || !a.events.empty())
    throw_usage("convert: filter a store with its URL's parameters (since, until, host, comm, event...)");
  if (a.output != "-") check_output_dir(a.output);
  auto profile = fleet::load_fleet_profile(a.input);
  if (profile.samples.empty() && fmt != convert::Format::kHtml) throw_runtime("convert: no samples in the store match");
  for (const auto& n : profile.notes) note(std::string_view(n));
  write_output(fmt, profile, nullptr, a, "");
}

// 1. Arguments, all of them, before touching the input: the format, and
// what the profile keeps.
analysis::ProfileOptions convert_options(const ConvertArgs& a, convert::Format& fmt) {
  if (a.to.empty()) throw_usage("convert: --to FORMAT is required ({})", convert::format_names());
  auto parsed = convert::parse_format(a.to);
  if (!parsed) throw_usage("convert: unknown format '{}' (expected one of: {})", a.to, convert::format_names());
  fmt = *parsed;
  if (a.output.empty()) throw_usage("convert: -o OUT is required (- for standard output)");
  if (fmt == convert::Format::kPerf && a.output == "-")
    throw_usage("convert: --to perf needs an output file (file mode is not a stream)");
  if (fmt == convert::Format::kPerf && (a.inline_frames || a.symbols.no_demangle || a.max_stack))
    throw_usage("convert: --inline, --no-demangle and --max-stack do not apply to --to perf (it copies the records)");
  if (!a.jit_maps.empty() && fmt != convert::Format::kPerf) throw_usage("convert: --jit-maps applies to --to perf only");
  if ((a.comm_frame || a.pid_frame) && fmt != convert::Format::kFolded)
    throw_usage("convert: --comm-frame and --pid-frame apply to --to folded only");
  if (a.output != "-" && a.input != "-" && a.output == a.input) throw_usage("convert: -o must differ from -i");
  analysis::ProfileOptions po;
  if (fleet::is_store_url(a.input)) return po;  // filtered by the URL's parameters (convert_store)
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
  return po;
}

void run_convert(const ConvertArgs& a) {
  convert::Format fmt{};
  analysis::ProfileOptions po = convert_options(a, fmt);
  if (fleet::is_store_url(a.input)) return convert_store(fmt, a);

  // perf file mode copies records: no Profile, no symbolization.
  if (fmt == convert::Format::kPerf) {
    auto reader = analysis::open_input(a.input);
    std::vector<std::string> jitdumps;
    convert::write_perf_file(*reader, po.filter, a.output, &jitdumps, a.input);
    analysis::conclude_reading(analysis::outcome_of(*reader), a.input);
    write_jit_maps(a, jitdumps);
    return;
  }

  // 2. Read and symbolize.
  Symbolizer symbolizer(a.symbols.options(a.input));
  po.progress = progress_printer("convert");
  auto reader = analysis::open_input(a.input);
  // The page's timeline: each sample's time bin, probe hits, off-CPU and losses.
  std::optional<analysis::TimelineCollector> collector;
  if (fmt == convert::Format::kHtml) {
    collector.emplace(probe::sdt_extra_fields);
    po.on_kept_sample = [&](const format::Sample& s, uint32_t agg) { collector->on_kept_sample(s, agg); };
    po.on_record = [&](const format::RecordView& r, const format::Session& s) { collector->on_record(r, s); };
  }
  auto profile = analysis::build_profile(*reader, symbolizer, po);
  clear_progress();
  std::optional<analysis::Timeline> timeline;
  if (collector) timeline = collector->finish();
  // An empty recording's page says so; other formats have nothing to write,
  // and an input cut short (not a recording without samples) is an error.
  // A malformed record: no output file (reading_outcome.h's policy).
  analysis::throw_if_stopped(profile.outcome, a.input);
  if (profile.samples.empty() && (fmt != convert::Format::kHtml || profile.outcome.truncated_bytes))
    throw_runtime("convert: {}", no_samples_text(a));
  if (profile.samples.empty()) note("{}; the page says so", no_samples_text(a));
  analysis::conclude_reading(profile.outcome, a.input);
  for (const auto& n : profile.notes) note(std::string_view(n));
  if (profile.events.size() > 1 && fmt == convert::Format::kFolded)
    note("{} events recorded; {} shows '{}' only (choose with --event)", profile.events.size(), a.to,
         profile.events[0].name);

  // The page's annotate view: the hottest functions' code, lines and costs.
  std::string annotate_json;
  if (fmt == convert::Format::kHtml && a.annotate_functions > 0 && !profile.samples.empty()) {
    std::vector<std::string> notes;
    annotate_json = annotate::page_annotations_json(profile, timeline ? &*timeline : nullptr, symbolizer,
                                                    {.max_functions = a.annotate_functions}, notes);
    for (const auto& n : notes) note(std::string_view(n));
  }

  // 3. Write.
  write_output(fmt, profile, timeline ? &*timeline : nullptr, a, annotate_json);
}

}  // namespace

void register_convert(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand("convert", "Convert a recording to pprof, folded stacks, speedscope, an HTML flame graph or OTLP profiles");
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
  cmd->add_option("--jit-maps", a->jit_maps,
                  "--to perf: write the perf maps of JIT code (from the recording's perf maps and jitdumps) to this "
                  "folder, e.g. /tmp where perf looks (default: OUTPUT.jit)");
  cmd->add_option("--annotate-functions", a->annotate_functions,
                  "html: embed the annotate view (instructions and source lines) of this many hottest functions "
                  "(0: none)")
      ->capture_default_str();
  cmd->add_flag("--comm-frame", a->comm_frame, "folded: start each stack with the command name");
  cmd->add_flag("--pid-frame", a->pid_frame, "folded: start each stack with COMM-PID");
  cmd->callback([a] { run_convert(*a); });
}

}  // namespace sonde::cli
