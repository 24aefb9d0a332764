#include "commands.h"
#include "util/error.h"

namespace sonde::cli {

void register_script(CLI::App& app, int& /*exit_code*/) {
  auto* cmd = app.add_subcommand("script", "TODO");
  cmd->callback([] { throw_runtime("script is not implemented yet"); });
}

}  // namespace sonde::cli
