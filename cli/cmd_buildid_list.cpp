// sonde buildid-list: the build-ids a recording names, like perf buildid-list.
#include <cstdio>
#include <set>

#include "analysis/directory_reader.h"
#include "commands.h"
#include "format/stream_reader.h"
#include "report/buildid_listing.h"
#include "util/error.h"

namespace sonde::cli {

namespace {

struct BuildIdListArgs {
  std::string input = "sonde.data";
  bool with_hits = false;
};

void run_buildid_list(const BuildIdListArgs& args) {
  auto reader = analysis::open_input(args.input);
  for (const auto& e : report::list_build_ids(*reader, args.with_hits)) std::printf("%s %s\n", e.build_id.c_str(), e.path.c_str());
}

}  // namespace

void register_buildid_list(CLI::App& app, int& /*exit_code*/) {
  auto args = std::make_shared<BuildIdListArgs>();
  auto* cmd = app.add_subcommand("buildid-list", "List the build-ids (and paths) a recording names");
  cmd->add_option("-i,--input", args->input, "Recording to read, - for standard input")->capture_default_str();
  cmd->add_flag("-H,--with-hits", args->with_hits, "Only objects that samples hit");
  cmd->callback([args] { run_buildid_list(*args); });
}

}  // namespace sonde::cli
