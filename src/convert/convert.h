// Exporters: each turns the shared analysis::Profile into one file format that
// other tools read. They only read the Profile (already filtered and
// symbolized by build_profile), so filters and symbolization options apply to
// every format alike. Each writes to a std::ostream and throws sonde::Error
// (runtime) when the stream fails.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "format/stream_reader.h"
#include "analysis/profile.h"
#include "analysis/profile_builder.h"  // ProfileFilter
#include "analysis/timeline.h"
#include "convert/frames.h"

namespace sonde::convert {

enum class Format { kPprof, kFolded, kSpeedscope, kHtml, kPerf, kOtlp };

// "pprof" -> kPprof, ...; nullopt for an unknown name.
std::optional<Format> parse_format(std::string_view name);
// "pprof, folded, speedscope, html, perf, otlp", for usage messages.
std::string format_names();

// pprof: gzip-compressed perftools.profiles.Profile.
void write_pprof(const analysis::Profile& p, std::ostream& out);

// otlp: an OpenTelemetry profiles (v1development) ProfilesData message,
// one Profile per event, not compressed (docs/export.md).
void write_otlp(const analysis::Profile& p, std::ostream& out);

struct FoldedOptions {
  bool comm_frame = false;  // prefix each stack with the command name
  bool pid_frame = false;   // prefix each stack with "comm-pid/tid" style "pid" frame
};
// folded: "root;...;leaf COUNT" lines, sorted, one per distinct stack.
void write_folded(const analysis::Profile& p, const FoldedOptions& opts, std::ostream& out);

struct SpeedscopeOptions {
  std::string name;  // the file's "name" (e.g. the input file name)
};
// speedscope: shared frames, one sampled profile per (event, thread).
void write_speedscope(const analysis::Profile& p, const SpeedscopeOptions& opts, std::ostream& out);

// The baseline of a differential flame graph (`sonde diff --to html`): the
// page draws the profile's stacks, and colours each frame by how its share
// changed from the baseline's same stack (Gregg's difffolded).
struct HtmlBaseline {
  const analysis::Profile* profile = nullptr;
  std::string label;  // "BASE.data", for the page
  // The name a frame's object is matched under on either side (file name,
  // or the other side's name for one build-id).
  std::function<std::string(const Frame& frame, bool in_baseline)> object_key;
};

struct HtmlOptions {
  std::string title;      // page title (e.g. the input file name)
  size_t top_functions = 1000;  // rows of the top-functions table
  std::string event;      // the event shown (default: the first)
  std::optional<HtmlBaseline> baseline;
  // Without a baseline: the analysis page (timeline and views, page/*.js).
  const analysis::Timeline* timeline = nullptr;  // null: one bin, no markers
  std::string empty_reason;  // the page says this (an empty recording)
  std::string annotate_json;  // the annotate view's data (annotate/page_annotations.h)
};
// html: one self-contained page. With a baseline, a differential flame graph
// and a top-functions table; else the analysis page: header facts, a
// timeline of threads, and flame graph, call tree, bottom-up, caller/callee
// and top-functions views of a selection (docs/export.md).
void write_html(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out);

// perf: a file-mode perf.data (format/file_mode_writer) of the input's
// records, with the samples the filter rejects left out. Written to a
// temporary file renamed onto out_path at the end. Returns the samples kept;
// throws sonde::Error (runtime) when none is, leaving no file. `jitdumps`,
// when given, receives the jit-PID.dump paths the recording maps (for
// perf_jit_maps.h). A malformed record in the input is the reading policy's
// error, "INPUT: REASON" (analysis/reading_outcome.h), and leaves no file.
uint64_t write_perf_file(format::RecordReader& in, const analysis::ProfileFilter& filter, const std::string& out_path,
                         std::vector<std::string>* jitdumps = nullptr, std::string_view input = "the recording");

// The event a single-event format (folded, html) shows: the first event of
// the profile. Returns UINT32_MAX when the profile has no events.
uint32_t primary_event(const analysis::Profile& p);

// Frame names of one location, outermost first (inline frames expanded when
// the location carries them). Appends to `out`: function ids.
void location_functions(const analysis::Profile& p, uint32_t location, std::vector<uint32_t>& out);

}  // namespace sonde::convert
