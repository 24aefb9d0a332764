// Options shared by the commands that read and symbolize a recording
// (report, script, convert): where symbols come from, and a progress line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symbol/symbolizer.h"

namespace sonde::cli {

struct SymbolArgs {
  bool no_demangle = false;
  std::string buildid_dir;
  std::vector<std::string> debug_dirs;

  // --no-demangle, --buildid-dir, --debug-dir.
  void add_to(CLI::App* cmd);
  // The options for reading `input` (its JIT files' copies beside it).
  SymbolizerOptions options(const std::string& input) const;
};

// The recording read when -i is not given: sonde.data, or perf.data when
// only that one exists in the current folder (a perf user's habit).
std::string default_recording();
// The -i help text that says so.
inline constexpr const char* kInputHelp =
    "Recording to read: a file, a directory of streams (docs/format.md), - for standard input (default: "
    "sonde.data, or perf.data if only that exists)";

// A "reading N%" line on stderr while a large input is read, only when
// stderr is a terminal (empty function otherwise); clear_progress() erases it.
std::function<void(uint64_t, uint64_t)> progress_printer(const char* command);
void clear_progress();

}  // namespace sonde::cli
