// sonde test: what perf's shell tests ask of `perf test`: its workloads
// (`-w noploop|thloop|leafloop|sqrtloop [SECONDS]`) and the one self-test they
// query, "Symbols" (with -vv: this binary's symbols, one per line, name last).
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "util/text_join.h"
#include "workload/self_symbols.h"
#include "workload/workloads.h"

namespace sonde::cli {

namespace {

struct TestArgs {
  std::string workload;
  std::vector<std::string> words;  // test names, or the workload's arguments
  int verbose = 0;
  bool dont_fork = false;
};

constexpr const char* kSymbolsTest = "Symbols";

// perf test's selection: no words (all), `list`, or name fragments.
bool selects_symbols(const std::vector<std::string>& words) {
  if (words.empty()) return true;
  for (const auto& w : words)
    if (std::string(kSymbolsTest).find(w) != std::string::npos || w == "1") return true;
  return false;
}

void run_test(const TestArgs& a, int& exit_code) {
  if (!a.workload.empty()) {
    exit_code = workload::run_workload(a.workload, a.words);
    return;
  }
  if (!a.words.empty() && a.words[0] == "list") {
    std::printf("  1: %s\n", kSymbolsTest);
    return;
  }
  if (!selects_symbols(a.words)) return;
  std::printf("  1: %-60s:\n", kSymbolsTest);
  auto symbols = workload::self_symbols();
  if (a.verbose >= 2)
    for (const auto& s : symbols)
      std::printf("  %#llx-%#llx %s\n", (unsigned long long)s.start, (unsigned long long)s.end, s.name.c_str());
  std::printf("  1: %-60s: %s\n", kSymbolsTest, symbols.empty() ? "FAILED!" : "Ok");
  if (symbols.empty()) exit_code = 1;
}

}  // namespace

void register_test(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TestArgs>();
  std::string names;
  for (const auto& n : workload::workload_names()) append_separated(names, ", ", n);
  auto* cmd = app.add_subcommand("test", "perf test's workloads (-w) and its Symbols self-test, for perf's shell tests");
  cmd->add_option("-w,--workload", a->workload,
                  "Run a workload: " + names + " (argument: seconds, default 1)");
  cmd->add_flag("-v,--verbose", a->verbose, "More output (-vv: the Symbols test lists this binary's symbols)");
  cmd->add_flag("-F,--dont-fork", a->dont_fork, "Accepted for perf's sake (tests run in this process)");
  cmd->add_option("tests", a->words, "Test name fragments, `list`, or with -w the workload's arguments");
  cmd->callback([a, &exit_code] { run_test(*a, exit_code); });
}

}  // namespace sonde::cli
