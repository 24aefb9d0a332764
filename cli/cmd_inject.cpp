// sonde inject: perf inject's pipelines (-i/-o, - for the standard streams;
// -b, -B, --buildid-all, --mmap2-buildid-all). sonde's MMAP2 records carry
// build-ids already, so the recording passes through unchanged
// (src/inject/passthrough.h); --jit is not done yet and is refused.
#include "commands.h"
#include "inject/passthrough.h"
#include "util/error.h"

namespace sonde::cli {

void register_inject(CLI::App& app, int& /*exit_code*/) {
  struct Args {
    std::string input = "-", output = "-";
    bool build_ids = false, jit = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("inject", "Pass a recording through perf inject's pipelines (build-ids are already in it)");
  cmd->add_option("-i,--input", a->input, "Recording to read, - for standard input")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Where to write it, - for standard output")->capture_default_str();
  cmd->add_flag("-b,--build-ids,-B,--buildid-all,--mmap2-buildid-all", a->build_ids,
                "perf's build-id injection: sonde's MMAP2 records carry build-ids already (nothing to add)");
  cmd->add_flag("-j,--jit", a->jit, "perf's jitdump injection: not done yet (sonde report reads jitdumps directly)");
  cmd->callback([a] {
    if (a->jit) throw_usage("inject --jit is not supported yet: sonde report and script read jitdumps directly");
    inject::pass_through(a->input, a->output);
  });
}

}  // namespace sonde::cli
