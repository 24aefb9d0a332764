// `sonde inject`: what perf inject's everyday pipelines need from it.
// sonde's streams already carry what -b/--buildid-all/--mmap2-buildid-all
// add (a build-id in every executable MMAP2 record), so injecting is
// passing the recording through unchanged: `record -o - | inject -b |
// report -i -` works, and so does `inject -i F -o G` (G reads as F does).
#pragma once

#include <cstdint>
#include <string>

namespace sonde::inject {

// Copies the recording `input` ("-": standard input) to `output` ("-":
// standard output), after checking it starts with perf.data's magic.
// Returns the bytes copied. Throws sonde::Error: a usage error when the input
// is not a perf.data recording (nothing is written), a runtime error when a
// file cannot be opened or written.
uint64_t pass_through(const std::string& input, const std::string& output);

}  // namespace sonde::inject
