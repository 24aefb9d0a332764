#include "reading_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "cache/buildid_cache.h"
#include "jit/jit_files.h"
#include "kernel/process_environment.h"
#include "util/cpu_set.h"
#include "util/error.h"

namespace sonde::cli {

void check_elf_argument(const char* flag, const std::string& path, const char* what) {
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw_usage("{} {}: cannot read it: {}", flag, path, errno_text(errno));
  unsigned char magic[4] = {};
  const bool elf = std::fread(magic, 1, 4, f) == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
  std::fclose(f);
  if (!elf) throw_usage("{} {}: not an ELF file ({})", flag, path, what);
}

void SymbolArgs::add_to(CLI::App* cmd) {
  cmd->add_flag("--no-demangle", no_demangle, "Keep C++ names as in the symbol table");
  cmd->add_option("--buildid-dir", buildid_dir, "Build-id cache root (default: $SONDE_BUILDID_DIR or ~/.debug)");
  // One value per --debug-dir (repeatable): a word after it is the
  // subcommand's own (annotate's symbol), not a second directory.
  cmd->add_option("--debug-dir", debug_dirs, "Roots of separate debug files (default /usr/lib/debug)")
      ->allow_extra_args(false);
}

SymbolizerOptions SymbolArgs::options(const std::string& input) const {
  // libdebuginfod's timeout and retries (environment only), before the
  // reading starts its threads.
  kernel::set_debuginfod_defaults();
  SymbolizerOptions so;
  // The recording's copies of its JIT files (docs/format.md).
  if (!input.empty() && input != "-") so.jit_dirs = {jit::jit_dir_for(input)};
  so.demangle = !no_demangle;
  so.cache_root = BuildIdCache::default_root(buildid_dir);
  if (!debug_dirs.empty()) so.debug_roots = debug_dirs;
  return so;
}

void check_strict(bool strict, const analysis::ReadingOutcome& outcome, const std::string& input) {
  if (strict && outcome.truncated_bytes)
    throw_runtime("{}: the recording ends short: {} bytes lost (--strict)", input, outcome.truncated_bytes);
}

std::string default_recording() {
  auto exists = [](const char* path) { return ::access(path, F_OK) == 0; };
  if (!exists("sonde.data") && exists("perf.data")) return "perf.data";
  return "sonde.data";
}

std::function<void(uint64_t, uint64_t)> progress_printer(const char* command) {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  return [command](uint64_t pos, uint64_t size) {
    if (size)
      std::fprintf(stderr, "\rsonde %s: reading %3.0f%%", command, 100.0 * double(pos) / double(size));
    else
      std::fprintf(stderr, "\rsonde %s: read %llu MB", command, (unsigned long long)(pos >> 20));
  };
}

void clear_progress() {
  if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
}

std::vector<int> cpu_filter(const std::string& text) {
  std::vector<int> cpus;
  if (!parse_cpu_set(text, cpus)) throw_usage("-C: invalid CPU list '{}' (expected e.g. 0,2-3)", text);
  return cpus;
}

}  // namespace sonde::cli
