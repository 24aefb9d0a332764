// Options shared by the commands that read and symbolize a recording
// (report, script, convert): where symbols come from, and a progress line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/reading_outcome.h"
#include "symbol/symbolizer.h"

namespace sonde::cli {

struct SymbolArgs {
  bool no_demangle = false;
  std::string buildid_dir;
  std::vector<std::string> debug_dirs;

  // --no-demangle, --buildid-dir, --debug-dir.
  void add_to(CLI::App* cmd);
  // The options for reading `input` (its JIT files' copies beside it).
  // Sets sonde's debuginfod defaults in the environment
  // (kernel/process_environment.h): call it before threads start.
  SymbolizerOptions options(const std::string& input) const;
};

// A usage error (exit 2) unless `path` is empty or a readable ELF file:
// "-k PATH: not an ELF file (a vmlinux with symbols)".
void check_elf_argument(const char* flag, const std::string& path, const char* what);

// The recording read when -i is not given: sonde.data, or perf.data when
// only that one exists in the current folder (a perf user's habit).
std::string default_recording();
// The -i help text that says so.
inline constexpr const char* kInputHelp =
    "Recording to read: a file, a directory of streams (docs/format.md), - for standard input (default: "
    "sonde.data, or perf.data if only that exists)";

// --strict (report, script): a recording that ends short (a killed
// recorder, a file cut) fails with exit 1 after the output, instead of the
// default note and exit 0 (docs/format.md "Broken input"). perf errors out
// on such files; sonde's default keeps what is complete.
inline constexpr const char* kStrictHelp =
    "Exit 1 when the recording ends short (an incomplete last record or a cut data section), "
    "saying how many bytes were lost, as perf does (default: use what is complete, a note, exit 0)";
void check_strict(bool strict, const analysis::ReadingOutcome& outcome, const std::string& input);

// -C CPUS (report, script): perf's CPU list ("0,2-3"), sorted; a usage
// error naming the text when malformed.
std::vector<int> cpu_filter(const std::string& text);

// A "reading N%" line on stderr while a large input is read, only when
// stderr is a terminal (empty function otherwise); clear_progress() erases it.
std::function<void(uint64_t, uint64_t)> progress_printer(const char* command);
void clear_progress();

}  // namespace sonde::cli
