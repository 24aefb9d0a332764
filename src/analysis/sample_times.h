// The first and last sample times of a recording, which --time's
// percentages are relative to: from its HEADER_SAMPLE_TIME feature (perf's
// file mode writes one), else found by reading every sample's time once.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/time_ranges.h"

namespace sonde::analysis {

struct SampleTimes {
  uint64_t first = 0, last = 0;
};

// Reads `path` (not standard input: it cannot be read twice) up to its
// HEADER_SAMPLE_TIME feature, or to its end. Throws sonde::Error.
SampleTimes find_sample_times(const std::string& path);

// `spec` in nanoseconds for the recording at `path`: percentages look the
// sample times up first (a usage error on standard input).
TimeRanges resolve_time_ranges(const TimeSpec& spec, const std::string& path);

}  // namespace sonde::analysis
