// sonde evlist: the events a recording holds, as perf evlist prints them
// (-v: every attr field in perf's order; -F: the sample frequency).
#include <fmt/format.h>

#include <cstdio>

#include "analysis/directory_reader.h"
#include "analysis/reading_outcome.h"
#include "commands.h"
#include "format/attr_text.h"
#include "format/session.h"
#include "reading_options.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct EvlistArgs {
  std::string input;
  bool verbose = false, freq = false;
};

void run_evlist(const EvlistArgs& a) {
  const std::string input = a.input.empty() ? default_recording() : a.input;
  auto reader = analysis::open_input(input);
  format::Session session;
  format::RecordView rec;
  while (reader->next(rec))
    if (!session.observe(rec)) break;
  std::string out;
  for (const auto& e : session.events()) {
    if (a.verbose) {
      // perf: "NAME: type: 1, size: 128, ..." (the fields without their leading ", ").
      std::string fields = format::attr_fields_text(e.attr, ": ");
      out += fmt::format("{}: {}\n", e.name, fields.size() > 2 ? fields.substr(2) : fields);
    } else if (a.freq) {
      out += fmt::format("{}: sample_{}={}\n", e.name, e.attr.freq ? "freq" : "period", e.attr.sample_period);
    } else {
      out += e.name + "\n";
    }
  }
  // perf's hint when there are tracepoints (sonde has no --trace-fields yet:
  // `sonde list` and `script -F trace` show the fields).
  bool tracepoints = false;
  for (const auto& e : session.events()) tracepoints |= e.kind == format::EventKind::kTracepoint;
  if (tracepoints) out += "# Tip: use 'perf evlist --trace-fields' to show fields for tracepoint events\n";
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw_runtime("cannot write the event list");
  analysis::throw_if_stopped(analysis::outcome_of(*reader), input);  // the reading policy's stop
}

}  // namespace

void register_evlist(CLI::App& app, int& /*exit_code*/) {
  auto a = std::make_shared<EvlistArgs>();
  auto* cmd = app.add_subcommand("evlist", "The events a recording holds, as perf evlist");
  cmd->add_option("-i,--input", a->input, kInputHelp);
  cmd->add_flag("-v,--verbose", a->verbose, "Every attr field, in perf's order");
  cmd->add_flag("-F,--freq", a->freq, "The sample frequency of the events that have one");
  cmd->callback([a] { run_evlist(*a); });
}

}  // namespace sonde::cli
