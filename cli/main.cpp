// The sonde CLI: option parsing and dispatch only; all logic is in libsonde.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "commands.h"
#include "kernel/fatal_signals.h"
#include "util/diagnostics.h"
#include "util/error.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "0.0.0"
#endif

namespace {

struct Subcommand {
  const char* name;
  void (*add)(CLI::App&, int&);
};
constexpr Subcommand kSubcommands[] = {
    {"record", sonde::cli::register_record},           {"script", sonde::cli::register_script},
    {"buildid-list", sonde::cli::register_buildid_list}, {"sdt", sonde::cli::register_sdt},
    {"buildid-cache", sonde::cli::register_buildid_cache}, {"report", sonde::cli::register_report},
    {"convert", sonde::cli::register_convert},         {"list", sonde::cli::register_list},
    {"top", sonde::cli::register_top},                 {"diff", sonde::cli::register_diff},
    {"annotate", sonde::cli::register_annotate},
    {"trace", sonde::cli::register_trace},             {"sched", sonde::cli::register_sched},
    {"stat", sonde::cli::register_stat},               {"push", sonde::cli::register_push},
    {"agent", sonde::cli::register_agent},             {"probe", sonde::cli::register_probe},
    {"version", sonde::cli::register_version},
    {"kallsyms", sonde::cli::register_kallsyms},       {"test", sonde::cli::register_test},
    {"inject", sonde::cli::register_inject},           {"evlist", sonde::cli::register_evlist},
    {"check", sonde::cli::register_check},
};

// Builds only the subcommand being run when argv[1] names one: building all
// of them with their options costs ~0.2 ms, a tenth of `sonde sdt list`.
// `sonde --help` and the like see them all. Returns false when argv[1] is
// a word that names no subcommand (CLI11 would only say one is required).
bool add_subcommands(CLI::App& app, int argc, char** argv, int& exit_code) {
  if (argc > 1)
    for (const auto& s : kSubcommands)
      if (std::strcmp(argv[1], s.name) == 0) {
        // The library's warnings and notes say which subcommand speaks
        // (util/diagnostics.h); a subcommand's -q silences them.
        sonde::set_diagnostics_prefix(std::string("sonde ") + s.name);
        return s.add(app, exit_code), true;
      }
  for (const auto& s : kSubcommands) s.add(app, exit_code);  // the prefix stays "sonde"
  return argc < 2 || argv[1][0] == '-';
}

// perf's options before the subcommand (`perf --buildid-dir DIR
// buildid-cache ...`), parsed once here and taken out of argv: --buildid-dir
// becomes $SONDE_BUILDID_DIR, which every command's cache root defaults to;
// --no-pager and -P are accepted (sonde never pages). Returns false, with a
// message, for one without its value.
bool take_global_options(int& argc, char** argv) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--buildid-dir" || arg.rfind("--buildid-dir=", 0) == 0) {
      const char* dir = arg.size() > 13 ? argv[i] + 14 : (i + 1 < argc ? argv[++i] : nullptr);
      if (!dir || !*dir) return std::fprintf(stderr, "sonde: --buildid-dir needs a directory\n"), false;
      ::setenv("SONDE_BUILDID_DIR", dir, 1);
    } else if (arg != "--no-pager" && arg != "-P") {
      break;  // --help, --version and the like: CLI11's
    }
  }
  if (i > 1 && (i == argc || argv[i][0] != '-')) {
    argc -= i - 1;
    std::memmove(argv + 1, argv + i, sizeof(char*) * static_cast<size_t>(argc));  // argv[argc] is NULL too
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sonde: a Linux profiler and SDT tracer that writes perf's pipe-mode perf.data", "sonde"};
  app.set_version_flag("--version", "sonde " SONDE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = 0;
  if (!take_global_options(argc, argv)) return 2;
  // Process-wide state is the CLI's, set before any thread starts: a signal
  // that ends sonde removes the temporary outputs the library lists.
  sonde::kernel::remove_listed_files_on_fatal_signals();
  if (!add_subcommands(app, argc, argv, exit_code)) {
    // perf's words: perf's shell tests look for them to skip a missing command.
    std::fprintf(stderr, "sonde: '%s' is not a perf-command. See 'sonde --help'.\n", argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "sonde: %s (see sonde --help)\n", e.what());
    return 2;
  } catch (const sonde::Error& e) {
    std::fprintf(stderr, "sonde: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sonde: internal error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
