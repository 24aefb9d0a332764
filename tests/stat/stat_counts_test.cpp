// sonde stat's counts on a fixture with known work, its exit status and its
// bad-input handling.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "stat/stat_test_util.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

// sched:sched_switch filtered to prev_state == 1 (TASK_INTERRUPTIBLE)
// counts the task's voluntary sleeps alone: a preemption leaves it
// runnable (0), a wait for I/O uninterruptible (2).
const char* kEvents =
    "-e page-faults,cs,syscalls:sys_enter_write -e sched:sched_switch --filter 'prev_state == 1'";

std::map<std::string, double> counts(const std::string& tool, const std::string& args) {
  // setarch -R: no address randomization, so the start-up's faults (stack,
  // argv crossing a page or not) are the same in every run.
  auto r = sh(tool + " stat -x, " + kEvents + " -- setarch -R " + stat_work_bin() + " " + args + " 2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto c = csv_counts(r.out);
  // Every voluntary switch is a context switch; a busy machine adds
  // involuntary ones, never fewer.
  EXPECT_GE(c["cs"], c["sched:sched_switch"]) << tool << " " << r.out;
  return c;
}

// Each count's minimum over three runs: a busy machine only ever adds
// (preemptions, start-up faults on pages the cache dropped).
std::map<std::string, double> min_counts(const std::string& tool, const std::string& args) {
  auto best = counts(tool, args);
  for (int i = 0; i < 2; ++i)
    for (auto& [name, v] : counts(tool, args)) best[name] = std::min(best[name], v);
  return best;
}

// The same code runs for 1 and for 1+N of each: the differences are the
// work's alone (start-up faults and the first call of each libc function
// are in both).
void expect_exact_work(const std::string& tool) {
  auto base = min_counts(tool, "1 1 1 0");
  auto more = min_counts(tool, "301 6 8 0");
  // Start-up's faults on file pages vary by a few with the page cache
  // (fault-around maps the neighbours that are cached): the work's 300
  // anonymous pages are 300 faults, the rest within a few.
  EXPECT_NEAR(more["page-faults"] - base["page-faults"], 300, 5) << tool;
  EXPECT_EQ(more["syscalls:sys_enter_write"] - base["syscalls:sys_enter_write"], 7) << tool;
  // Each 1 ms sleep is one voluntary switch, and nothing else sleeps.
  EXPECT_EQ(base["sched:sched_switch"], 1) << tool;
  EXPECT_EQ(more["sched:sched_switch"], 6) << tool;
  // cs counts them too (and any preemption: not bounded above on a busy
  // machine; counts() checks cs >= the voluntary ones in every run).
  EXPECT_GE(more["cs"], 6) << tool;
}

TEST(StatCounts, FixtureWorkIsCountedExactly) {
  ASSERT_FALSE(stat_work_bin().empty());
  expect_exact_work(sonde_bin());
}

TEST(StatCounts, PerfCountsTheSameWork) {
  ASSERT_FALSE(stat_work_bin().empty());
  expect_exact_work("perf");
}

TEST(StatCounts, GroupsAndModifiersAreCounted) {
  ASSERT_FALSE(stat_work_bin().empty());
  auto r = sh(sonde_bin() + " stat -x, -e '{page-faults:u,cs}' -e 'syscalls:sys_enter_wr*' -- " + stat_work_bin() +
              " 11 1 4 0 2>&1 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto c = csv_counts(r.out);
  EXPECT_GE(c["page-faults:u"], 10);
  EXPECT_EQ(c["syscalls:sys_enter_write"], 4);
  EXPECT_GE(c["cs"], 1);
}

TEST(StatCounts, ExitStatusIsTheWorkloads) {
  EXPECT_EQ(sh(sonde_bin() + " stat -e cs -- sh -c 'exit 7' 2>/dev/null").exit_code, 7);
  EXPECT_EQ(sh(sonde_bin() + " stat -e cs -- sh -c 'kill -9 $$' 2>/dev/null").exit_code, 137);
}

TEST(StatCounts, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  std::string out = dir / "never.data";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"stat -e no-such-event -- true", "unknown event 'no-such-event'"},
      {"stat -I -5 -- true", "invalid -I"},
      {"stat -r 0 -- true", "-r/--repeat must be at least 1"},
      {"stat --per-core --per-socket -a -- true", "choose one of"},
      {"stat -e cs", "nothing to count"},
      {"stat -x, -j -- true", "-x and -j cannot be combined"},
      {"stat -e '{cs,page-faults' -- true", "unbalanced"},
      {"stat -p abc -- true", "invalid -p 'abc'"},
      {"stat record -o " + out + " -e bogus -- true", "unknown event 'bogus'"},
      {"stat record -o " + out + " -r 0 -- true", "-r/--repeat"},
      {"stat --filter 'prev_state == 1' -e sched:sched_switch -- true", "must follow a -e tracepoint"},
      {"stat -e cs --filter 'prev_state == 1' -- true", "'cs' is not a tracepoint"},
      {"stat -e sched:sched_switch --filter 'no_such_field ==' -- true", "cannot set filter"},
      {"stat record -o " + out + " -e sched:sched_switch --filter '(' -- true", "cannot set filter"},
      // The text -o file is not created either.
      {"stat -o " + out + " -e bogus -- true", "unknown event 'bogus'"},
      {"stat -o " + out + " -a -C 0-x -- true", "invalid CPU list"},
      {"stat -o " + out + " -A --per-thread -a -- true", "choose one of"},
      {"stat -o " + out + " -I abc -- true", "--interval-print"},
      {"stat -o " + out + " --", "nothing to count"},
  };
  for (const auto& [args, message] : cases) {
    auto r = sh(sonde_bin() + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
  struct stat st;
  EXPECT_NE(::stat(out.c_str(), &st), 0) << "a usage error created the output file";
}

}  // namespace
}  // namespace sonde::test

namespace sonde::test {
namespace {

// SDT probes are counted through record's BPF machinery: exactly one count
// per hit, in the table, the CSV and the stat stream perf reads back.
TEST(StatCounts, SdtProbeHitsAreCountedExactly) {
  ASSERT_FALSE(stat_work_bin().empty());
  auto r = sh(sonde_bin() + " stat -x, -e '%stat_work:tick' -e syscalls:sys_enter_write -- " + stat_work_bin() +
              " 1 0 2 37 2>&1 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto c = csv_counts(r.out);
  EXPECT_EQ(c["%stat_work:tick"], 37) << r.out;
  EXPECT_EQ(c["syscalls:sys_enter_write"], 2) << r.out;

  TempDir dir;
  std::string f = dir / "sdt.data";
  ASSERT_EQ(sh(sonde_bin() + " stat record -q -o " + f + " -e '%stat_work:tick' -- " + stat_work_bin() + " 1 0 0 11")
                .exit_code,
            0);
  auto perf = sh("perf stat report -i " + f + " 2>&1");
  EXPECT_NE(perf.out.find("                11      %stat_work:tick"), std::string::npos) << perf.out;
}

}  // namespace
}  // namespace sonde::test
