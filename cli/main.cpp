// The sonde CLI: option parsing and dispatch only; all logic is in libsonde.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sonde: a Linux profiler and SDT tracer that writes perf's pipe-mode perf.data", "sonde"};
  app.set_version_flag("--version", "sonde " SONDE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = 0;
  if (!add_subcommands(app, argc, argv, exit_code)) {
    std::string names;
    for (const auto& s : kSubcommands) names += names.empty() ? s.name : std::string(", ") + s.name;
    std::fprintf(stderr, "sonde: unknown command '%s' (commands: %s; see sonde --help)\n", argv[1], names.c_str());
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
