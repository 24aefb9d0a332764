#include "commands.h"
#include "util/error.h"

namespace sonde::cli {

void register_record(CLI::App& app, int& /*exit_code*/) {
  auto* cmd = app.add_subcommand("record", "Record a profile into a pipe-mode perf.data stream");
  cmd->callback([] { throw_runtime("record is not implemented yet"); });
}

}  // namespace sonde::cli
