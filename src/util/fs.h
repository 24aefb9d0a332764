// Small file-system helpers shared by every module.
#pragma once

#include <optional>
#include <string>

namespace sonde {

// Reads a whole (small) file such as a /proc or /sys entry. nullopt if it
// cannot be opened or read.
std::optional<std::string> read_small_file(const std::string& path);

// Reads the first line of a file without its newline.
std::optional<std::string> read_first_line(const std::string& path);

// Writes `data` to `path` atomically: a unique temporary name in the same
// folder, then rename(2), so a concurrent reader or writer never sees a
// half-written file (an AtomicFile, util/atomic_file.h). Throws sonde::Error
// (runtime) on failure.
void write_file_atomic(const std::string& path, const std::string& data);

// realpath(3): the absolute path with symlinks resolved; nullopt if the
// path does not exist.
std::optional<std::string> real_path(const std::string& path);

// mkdir -p. Throws sonde::Error (runtime) on failure.
void make_dirs(const std::string& path);

}  // namespace sonde
