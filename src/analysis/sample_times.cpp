#include "analysis/sample_times.h"
#include "analysis/directory_reader.h"

#include <algorithm>

#include "format/features.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "util/byte_reader.h"
#include "util/error.h"

namespace sonde::analysis {

using namespace sonde::format;

SampleTimes find_sample_times(const std::string& path) {
  auto reader = open_input(path);
  Session session;
  RecordView rec;
  SampleTimes t{UINT64_MAX, 0};
  bool metadata_done = false;
  while (reader->next(rec)) {
    if (session.observe(rec)) continue;
    if (!metadata_done) {
      // Features come before the first event record in both modes.
      metadata_done = true;
      if (auto t = decode_sample_time(session.feature(kFeatSampleTime))) return {t->first, t->second};
    }
    if (rec.header.type != kSample) continue;
    if (uint64_t time = session.sample_time(rec)) t.first = std::min(t.first, time), t.last = std::max(t.last, time);
  }
  if (t.first == UINT64_MAX) return {};
  return t;
}

TimeRanges resolve_time_ranges(const TimeSpec& spec, const std::string& path) {
  if (spec.empty()) return {};
  if (!spec.needs_sample_times()) return spec.resolve();
  if (path == "-")
    throw_usage("--time '{}': percentages need the first and last sample times, and standard input cannot be read "
                "twice: give the recording with -i FILE",
                spec.text());
  SampleTimes t = find_sample_times(path);
  return spec.resolve(t.first, t.last);
}

}  // namespace sonde::analysis
