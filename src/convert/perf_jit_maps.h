// `convert --to perf` and JIT code. perf names JIT frames only from
// /tmp/perf-PID.map: a jitdump reaches it through `perf inject --jit`,
// which writes one ELF file per function. So convert also writes a perf
// map per JIT process beside its output: the recording's copy of the
// process's own perf map, and every JIT_CODE_LOAD and JIT_CODE_MOVE of its
// jitdump as a "START SIZE NAME" line, in the dump's order (a later line
// for an address is the newer code there). Copied to /tmp (or written
// there with `--jit-maps /tmp`), they let perf report and Hotspot name the
// same JIT frames sonde names. docs/export.md.
#pragma once

#include <string>
#include <vector>

namespace sonde::convert {

struct PerfJitMaps {
  std::vector<std::string> written;  // the maps, in pid order
  std::vector<std::string> notes;    // one line per JIT file that could not be used
};

// `jitdumps`: the jit-PID.dump paths the recording mapped (found, as every
// reader finds them, in the recording's JIT directory first).
// `input_path`: the recording (its JIT directory holds perf map copies).
// Writes OUT_DIR/perf-PID.map for each process with JIT code; throws
// sonde::Error (runtime) when OUT_DIR or a map cannot be written.
PerfJitMaps write_perf_jit_maps(const std::vector<std::string>& jitdumps, const std::string& input_path,
                                const std::string& out_dir);

}  // namespace sonde::convert
