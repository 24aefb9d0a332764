#include "commands.h"
#include "util/error.h"

namespace sonde::cli {

void register_buildid_list(CLI::App& app, int& /*exit_code*/) {
  auto* cmd = app.add_subcommand("buildid-list", "TODO");
  cmd->callback([] { throw_runtime("buildid-list is not implemented yet"); });
}

}  // namespace sonde::cli
