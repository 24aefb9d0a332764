// The files JITs write beside their code (/tmp/perf-PID.map, jit-PID.dump)
// and where a reader finds them: `sonde record` keeps a copy of each in the
// recording's JIT directory (OUTPUT.jit/, docs/format.md), which a reader
// prefers to the recorded path (gone once /tmp is cleaned, or reused by a
// later process with the same pid).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::jit {

// "jit-PID.dump" as a file name (any directory): the pid, else nullopt.
// The most of a JIT file (jitdump, perf map) any reader reads: a runtime
// never writes that much, a hostile file may claim more.
inline constexpr uint64_t kMaxJitFileBytes = 1ull << 30;

std::optional<uint32_t> jitdump_pid(std::string_view path);
// "perf-PID.map" as a file name: the pid, else nullopt.
std::optional<uint32_t> perf_map_pid(std::string_view path);

// The directory beside a recording where its JIT files are copied.
std::string jit_dir_for(std::string_view recording_path);

// The copy of `recorded_path` in the first of `copy_dirs` that has one
// (same file name), else `recorded_path` itself.
std::string find_jit_file(std::string_view recorded_path, const std::vector<std::string>& copy_dirs);

// Reads a whole regular file of at most `max_bytes` into `out`; false with
// a one-line reason otherwise.
bool read_jit_file(const std::string& path, uint64_t max_bytes, std::string& out, std::string* why);

}  // namespace sonde::jit
