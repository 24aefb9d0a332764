// sonde version: the version line, and with --build-options what the build
// has, in perf's layout (`perf version --build-options`).
#include <cstdio>

#include "commands.h"
#include "util/build_features.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "0.0.0"
#endif

namespace sonde::cli {

void register_version(CLI::App& app, int& /*exit_code*/) {
  auto build_options = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("version", "The version, and with --build-options the features built in");
  cmd->add_flag("--build-options", *build_options, "Which optional features this build has (perf's layout)");
  cmd->callback([build_options] {
    std::printf("sonde version %s\n", SONDE_VERSION);
    if (*build_options) std::fputs(format_build_features(build_features()).c_str(), stdout);
  });
}

}  // namespace sonde::cli
