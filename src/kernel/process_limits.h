// Process-wide limits a recording needs, raised by the CLI (cmd_record,
// cmd_top) before it records: the library only reads them, so a program
// that links libsonde keeps the limits it chose.
#pragma once

#include <cstdint>

namespace sonde::kernel {

// Raises RLIMIT_NOFILE's soft limit to the hard one (every event fd is one
// file: events x CPUs x tasks). Returns the soft limit after, UINT64_MAX
// when unlimited or unknown.
uint64_t raise_open_file_limit();

// The soft RLIMIT_NOFILE now, UINT64_MAX when unlimited or unknown.
uint64_t open_file_limit();

}  // namespace sonde::kernel
