// `sonde report --stats`: how many records of each type a recording holds,
// and per event its samples and lost samples, as `perf report --stats`
// counts and prints them (perf 6.1's events_stats__fprintf and
// evlist__fprintf_nr_events): every record of the stream (in file mode,
// of the data section), a COMPRESSED record and each record inside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/stream_reader.h"

namespace sonde::report {

struct EventRecordStats {
  std::string name;
  uint64_t samples = 0;
  uint64_t lost_samples = 0;  // from LOST_SAMPLES records naming the event
};

struct RecordStats {
  uint64_t by_type[128] = {};
  uint64_t total = 0;
  std::vector<EventRecordStats> events;  // in the recording's order
  std::string stop_error;                // a malformed record ended the input
};

RecordStats count_records(format::RecordReader& reader);
std::string format_record_stats(const RecordStats& stats);

}  // namespace sonde::report
