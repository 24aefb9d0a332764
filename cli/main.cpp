// The sonde CLI: option parsing and dispatch only; all logic is in libsonde.
#include <cstdio>

#include "commands.h"
#include "util/error.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  CLI::App app{"sonde: a Linux profiler and SDT tracer that writes perf's pipe-mode perf.data", "sonde"};
  app.set_version_flag("--version", "sonde " SONDE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = 0;
  sonde::cli::register_record(app, exit_code);
  sonde::cli::register_script(app, exit_code);
  sonde::cli::register_buildid_list(app, exit_code);
  sonde::cli::register_sdt(app, exit_code);
  sonde::cli::register_buildid_cache(app, exit_code);
  sonde::cli::register_report(app, exit_code);
  sonde::cli::register_convert(app, exit_code);
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
