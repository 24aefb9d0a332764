// sonde check feature [-q] NAME[,NAME...]: perf's `check feature` (perf
// 6.10+), which perf's shell tests ask before testing an optional part
// (e.g. trace_summary.sh's `perf check feature -q bpf`). Exit 0 when every
// named feature is built in, 1 otherwise, as perf.
#include <cstdio>
#include <memory>
#include <sstream>

#include "commands.h"
#include "util/build_features.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

int check_features(const std::string& list, bool quiet) {
  bool all_on = true;
  std::istringstream names(list);
  for (std::string name; std::getline(names, name, ',');) {
    const BuildFeature* f = find_checkable_feature(name);
    if (!f) {
      if (!quiet) warn("unknown feature '{}' (sonde version --build-options lists them)", name);
      all_on = false;
      continue;
    }
    if (!quiet) std::fputs(format_build_features({*f}).c_str(), stdout);
    all_on = all_on && f->on;
  }
  return all_on ? 0 : 1;
}

}  // namespace

void register_check(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("check", "perf's check: is a feature built in (check feature NAME[,NAME])");
  cmd->require_subcommand(1);
  auto list = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto* feature = cmd->add_subcommand("feature", "Exit 0 when every named feature is built in, 1 otherwise");
  feature->add_option("features", *list, "Comma list of names (or HAVE_* macros)")->required();
  feature->add_flag("-q,--quiet", *quiet, "Print nothing: the exit status says");
  cmd->add_flag("-q,--quiet", *quiet, "Print nothing: the exit status says");
  feature->callback([list, quiet, &exit_code] { exit_code = check_features(*list, *quiet); });
}

}  // namespace sonde::cli
