// Files to remove if SIGINT, SIGTERM or SIGHUP ends the process: the
// temporary outputs of AtomicFile. This is only the list; the handler that
// removes them is the CLI's to install (kernel/fatal_signals.h: the library
// never changes a signal's disposition). Everything unlink_listed touches is
// preallocated, so it calls only async-signal-safe functions.
#pragma once

#include <string>

namespace sonde::signal_cleanup {

// Lists `path`; returns its slot for remove(), or -1 when the list is full
// or the path is too long (the file is then only removed by its owner).
int add(const std::string& path);
// Takes a slot off the list (-1: nothing).
void remove(int slot);
// Unlinks every listed path: async-signal-safe, for a signal handler.
void unlink_listed();

}  // namespace sonde::signal_cleanup
