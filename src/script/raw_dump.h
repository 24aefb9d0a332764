// `sonde script -D`: every record of a recording with its offset, size and
// raw bytes, then what it says, in perf's -D layout (perf 6.1's
// dump_event/trace_event/dump_sample). For bug reports about odd files:
// records are dumped where they are in the file, not in time order.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "format/stream_reader.h"

namespace sonde::script {

struct RawDumpResult {
  uint64_t records = 0;
  std::string stop_error;  // a malformed record ended the input
};

// `label` names the input after each offset ("pipe" for a pipe-mode
// stream, as perf, else the path). Throws sonde::Error if output fails.
RawDumpResult dump_raw_records(format::RecordReader& reader, const std::string& label, std::FILE* out);

// The recording the user named: a file ("pipe" or its path as the label, as
// perf), or a directory of streams (format/recording_dir.h) file by file,
// `data` then each `data.N`, each labelled with its path and its own offsets
// (the raw view is what is on disk; the merged order is `script`'s). Returns
// Each file's end as analysis/reading_outcome.h's policy says: a note for an
// incomplete record at its end; a malformed record stops the dump (throws).
void dump_raw_input(const std::string& path, std::FILE* out);

}  // namespace sonde::script
