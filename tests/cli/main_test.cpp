// The sonde command line itself: which subcommand runs, and what a word that
// names none gets. main builds only the subcommand named by argv[1], so these
// also check that every subcommand is still reachable and listed.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

TEST(CommandLine, UnknownCommandIsNamedAsPerfNamesIt) {
  RunResult r = run({sonde_bin(), "recrod", "-o", "x.data", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  // perf's words: perf's shell tests skip on them.
  EXPECT_EQ(r.err, "sonde: 'recrod' is not a perf-command. See 'sonde --help'.\n");
}

TEST(CommandLine, NoCommandIsAUsageError) {
  RunResult r = run({sonde_bin()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sonde: A subcommand is required"), std::string::npos) << r.err;
}

TEST(CommandLine, HelpListsEveryCommandAndEachHasItsOwnHelp) {
  RunResult all = run({sonde_bin(), "--help"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* name : {"record", "script", "buildid-list", "sdt", "buildid-cache", "report", "convert", "list", "top",
                           "diff", "annotate", "trace", "sched", "stat", "push", "agent", "probe", "version", "kallsyms", "test", "inject", "evlist"}) {
    EXPECT_NE(all.out.find(std::string("\n  ") + name + " "), std::string::npos) << name << " missing:\n" << all.out;
    RunResult one = run({sonde_bin(), name, "--help"});
    EXPECT_EQ(one.exit_code, 0) << name << ": " << one.err;
    EXPECT_NE(one.out.find(std::string("Usage: sonde ") + name), std::string::npos) << one.out;
  }
}

TEST(CommandLine, OptionsOfAnotherCommandAreRejected) {
  // Only `sdt` is built for `sonde sdt ...`: an option of `report` is unknown there.
  RunResult r = run({sonde_bin(), "sdt", "list", "--sort", "dso"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--sort"), std::string::npos) << r.err;
}

}  // namespace
