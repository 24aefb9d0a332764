// Files to remove if SIGINT, SIGTERM or SIGHUP ends the process: the
// temporary outputs of AtomicFile. The handler is installed on first use
// (not over a signal that is ignored, as under nohup), unlinks the listed
// paths, then lets the signal do what it did before. Everything the handler
// touches is preallocated, so it calls only async-signal-safe functions.
#pragma once

#include <string>

namespace sonde::signal_cleanup {

// Lists `path`; returns its slot for remove(), or -1 when the list is full
// or the path is too long (the file is then only removed by its owner).
int add(const std::string& path);
// Takes a slot off the list (-1: nothing).
void remove(int slot);

}  // namespace sonde::signal_cleanup
