// How a reading ended, and the one policy every reader subcommand applies to
// it (report, report --stats, script, script -D, convert, sdt stats/latency;
// docs/format.md "Broken input"): the same broken input gives the same exit
// status and the same words everywhere.
//
//  - An incomplete last record (a recorder killed mid-write, a file cut
//    short): every complete record is used, a note says how many bytes were
//    ignored, and the exit status is 0.
//  - A malformed record before the end (a header size that cannot be, a
//    stream that stops making sense): what came before it is used and
//    written (to stdout; an output file is not committed), then the error
//    `INPUT: REASON` ends the subcommand with status 1.
//  - Samples lost while recording, samples that do not decode: notes,
//    unless the output itself shows them (report's header does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::format {
class RecordReader;
}

namespace sonde::analysis {

struct WalkStats;

struct ReadingOutcome {
  uint64_t truncated_bytes = 0;  // an incomplete last record, ignored
  std::string stop_error;        // a malformed record ended the input early
  uint64_t lost_samples = 0;     // said when nonzero
  uint64_t bad_samples = 0;      // said when nonzero, with the first one's reason
  std::string first_bad_sample;
};

// Everything a walk met (lost and malformed samples included).
ReadingOutcome outcome_of(const WalkStats& stats);
// A reader's end: the incomplete tail and the stop.
ReadingOutcome outcome_of(const format::RecordReader& reader);

// "WHAT ends with an incomplete record; ignored its last N bytes" (WHAT: "the
// recording", or one file of a directory).
std::string incomplete_tail_text(std::string_view what, uint64_t bytes);

// The notes' lines (lost, malformed, incomplete tail), for an output that
// says them after its own (annotate); conclude_reading says them at once.
std::vector<std::string> reading_notes(const ReadingOutcome& outcome, std::string_view what = "the recording");

// The notes (lost, malformed, incomplete tail) to the diagnostics sink;
// then, if a malformed record stopped the reading, throws the Runtime error
// "INPUT: REASON" (exit 1). `what` names the input in the tail's note.
void conclude_reading(const ReadingOutcome& outcome, std::string_view input,
                      std::string_view what = "the recording");
// Only the stop: for outputs that must not be committed when it happened.
void throw_if_stopped(const ReadingOutcome& outcome, std::string_view input);

}  // namespace sonde::analysis
