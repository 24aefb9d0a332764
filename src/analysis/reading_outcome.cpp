#include "analysis/reading_outcome.h"

#include <fmt/format.h>

#include "analysis/recording_walker.h"
#include "format/stream_reader.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::analysis {

ReadingOutcome outcome_of(const WalkStats& s) {
  return {s.truncated_bytes, s.stop_error, s.lost_samples, s.bad_samples, s.first_bad_sample};
}

ReadingOutcome outcome_of(const format::RecordReader& reader) {
  ReadingOutcome o;
  o.truncated_bytes = reader.truncated_bytes();
  o.stop_error = reader.error();
  return o;
}

std::string incomplete_tail_text(std::string_view what, uint64_t bytes) {
  return fmt::format("{} ends with an incomplete record; ignored its last {} bytes", what, bytes);
}

std::vector<std::string> reading_notes(const ReadingOutcome& o, std::string_view what) {
  std::vector<std::string> lines;
  if (o.lost_samples) lines.push_back(fmt::format("{} samples were lost while recording", o.lost_samples));
  if (o.bad_samples)
    lines.push_back(fmt::format("skipped {} malformed samples (first: {})", o.bad_samples, o.first_bad_sample));
  if (o.truncated_bytes) lines.push_back(incomplete_tail_text(what, o.truncated_bytes));
  return lines;
}

void conclude_reading(const ReadingOutcome& o, std::string_view input, std::string_view what) {
  for (const auto& line : reading_notes(o, what)) note(std::string_view(line));
  throw_if_stopped(o, input);
}

void throw_if_stopped(const ReadingOutcome& o, std::string_view input) {
  if (!o.stop_error.empty()) throw_runtime("{}: {}", input, o.stop_error);
}

}  // namespace sonde::analysis
