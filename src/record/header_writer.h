// The stream's metadata, written before any kernel record: the pipe header,
// one HEADER_ATTR per event (with all its ids), the HEADER_FEATURE records
// perf report/script use, the end marker, and EVENT_UPDATE NAME records
// (pipe mode has no other place for names).
#pragma once

#include <string>
#include <vector>

#include "format/features.h"
#include "format/stream_writer.h"

namespace sonde::record {

struct HeaderInfo {
  std::vector<format::EventDesc> events;  // in attr order; names matched by index in EVENT_DESC
  std::vector<std::string> cmdline;     // argv of the recorder
  std::string version;                  // FEAT VERSION, e.g. "sonde 0.1.0"
  // With -z: the COMPRESSED feature (zstd level; the most one COMPRESSED
  // record expands to, perf's mmap_len).
  int compression_level = 0;
  // The events' clock (attr.clockid) when they set use_clockid, else -1:
  // then the CLOCKID and CLOCK_DATA features are written, as perf does.
  int32_t clockid = -1;
  uint32_t compressed_record_max = 0;
};

// Pipe header, HEADER_ATTR × events, features 3..12 (and 27 with -z), end marker 32.
void write_header(format::StreamWriter& out, const HeaderInfo& info);

// EVENT_UPDATE NAME for each event (keyed by its first id).
void write_event_names(format::StreamWriter& out, const std::vector<format::EventDesc>& events);

}  // namespace sonde::record
