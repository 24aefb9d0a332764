// Turns one real pipe-mode recording into sonde's directory layout
// (docs/format.md, "Directory recordings"), as a threaded recorder would
// write it: DIR/data holds the header records and everything before
// FINISHED_INIT (the synthesized side-band); DIR/data.N holds the header
// records and then kernel records: by CPU (those of the CPUs N, N+k, N+2k...,
// k = `streams`), as per-CPU drain threads write them, or in turn (the i-th
// goes to data.(i mod k)), which interleaves the files record by record
// whatever CPUs the workload ran on. Every file is a whole pipe-mode stream,
// and every one gets each FINISHED_ROUND, so each keeps the original's rounds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::test {

// Records written into each file, DIR/data first. Throws sonde::Error when
// `stream` cannot be read.
enum class SplitBy { kCpu, kTurn };
std::vector<uint64_t> split_into_directory(const std::string& stream, const std::string& dir, unsigned streams,
                                           SplitBy by = SplitBy::kCpu);

}  // namespace sonde::test
