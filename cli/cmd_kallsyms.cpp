// sonde kallsyms SYMBOL...: where kernel symbols are, as perf kallsyms prints
// it ("NAME: not found" for one that is not there; the exit status stays 0).
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "kernel/kallsyms_lookup.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::cli {

void register_kallsyms(CLI::App& app, int& /*exit_code*/) {
  struct Args {
    std::vector<std::string> names;
    bool verbose = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("kallsyms", "Where kernel symbols are (/proc/kallsyms), as perf kallsyms");
  cmd->add_option("symbol", a->names, "Symbol names")->required();
  cmd->add_flag("-v,--verbose", a->verbose, "Accepted for perf's sake");
  cmd->callback([a] {
    auto text = read_small_file("/proc/kallsyms");
    if (!text) throw_runtime("cannot read /proc/kallsyms");
    for (const auto& name : a->names) {
      auto e = kernel::find_kallsyms_symbol(*text, name);
      if (e) std::printf("%s\n", kernel::format_kallsyms_entry(name, *e).c_str());
      else std::printf("%s: not found\n", name.c_str());
    }
  });
}

}  // namespace sonde::cli
