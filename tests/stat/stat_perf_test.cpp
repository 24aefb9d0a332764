// sonde stat's layouts against perf 6.1's, line by line with the numbers
// masked (the two runs count different nanoseconds, not different lines).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "stat/stat_test_util.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

// The distinct lines, sorted: how many readings an interval run gets
// depends on the machine's load, the layout of each line does not.
std::string distinct_lines(const std::string& text) {
  auto v = lines(text);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (const auto& l : v) out += l + "\n";
  return out;
}

void expect_same_layout(const std::string& args, bool any_count_of_readings = false) {
  auto ours = sh(sonde_bin() + " stat " + args + " 2>&1 >/dev/null");
  auto theirs = sh("perf stat " + args + " 2>&1 >/dev/null");
  ASSERT_EQ(ours.exit_code, theirs.exit_code) << args << "\n" << ours.out << theirs.out;
  std::string a = mask_numbers(ours.out), b = mask_numbers(theirs.out);
  if (any_count_of_readings) a = distinct_lines(a), b = distinct_lines(b);
  std::string diff = first_difference(a, b);
  EXPECT_EQ(diff, "") << args << "\nsonde:\n" << ours.out << "perf:\n" << theirs.out;
}

std::string work() { return " -- " + stat_work_bin() + " 64 2 3 0"; }

TEST(StatPerfLayout, Default) { expect_same_layout(work()); }
TEST(StatPerfLayout, Csv) { expect_same_layout("-x," + work()); }
TEST(StatPerfLayout, CsvOtherSeparator) { expect_same_layout("-x ';' -e cs,task-clock" + work()); }
TEST(StatPerfLayout, Json) { expect_same_layout("-j" + work()); }
TEST(StatPerfLayout, Repeat) { expect_same_layout("-r 3" + work()); }
TEST(StatPerfLayout, RepeatCsv) { expect_same_layout("-r 3 -x," + work()); }
TEST(StatPerfLayout, EventsWithoutAClock) {
  expect_same_layout("-e syscalls:sys_enter_write,page-faults:u" + work());
}
TEST(StatPerfLayout, GroupsNoBigNum) { expect_same_layout("--no-big-num -e '{task-clock,page-faults},cs'" + work()); }
TEST(StatPerfLayout, PerCpu) { expect_same_layout("-a -A" + work()); }
TEST(StatPerfLayout, PerCpuCsvJson) {
  expect_same_layout("-a -A -x, -e cs" + work());
  expect_same_layout("-a -A -j -e cs" + work());
}
TEST(StatPerfLayout, PerCoreAndSocket) {
  expect_same_layout("-a --per-core" + work());
  expect_same_layout("-a --per-socket -x," + work());
  expect_same_layout("-a --per-socket -j -e cs" + work());
}
// -I: intervals every 100 ms of a 250 ms workload (three readings when idle,
// the last partial; a loaded machine may add one: distinct lines compared),
// in each output style.
TEST(StatPerfLayout, Interval) {
  expect_same_layout("-I 100 -e cs,task-clock -- sleep 0.25", true);
  expect_same_layout("-I 100 -x, -e cs,task-clock -- sleep 0.25", true);
  expect_same_layout("-I 100 -j -e cs -- sleep 0.25", true);
  expect_same_layout("-I 100 -a -A -e cs -- sleep 0.25", true);
}

// --per-thread of a process that stays asleep: both print its one thread.
TEST(StatPerfLayout, PerThread) {
  pid_t child = ::fork();
  if (child == 0) {
    ::execlp("sleep", "sleep", "30", nullptr);
    ::_exit(127);
  }
  std::string p = " -p " + std::to_string(child) + " -e cs,task-clock -- " + stat_work_bin() + " 1 1 1 0";
  expect_same_layout("--per-thread" + p);
  expect_same_layout("--per-thread -x," + p);
  expect_same_layout("--per-thread -j" + p);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(StatPerfLayout, OutputFile) {
  TempDir dir;
  auto ours = sh(sonde_bin() + " stat -o " + dir / "s.txt" + " -e cs -- true && cat " + dir / "s.txt");
  auto theirs = sh("perf stat -o " + dir / "p.txt" + " -e cs -- true && cat " + dir / "p.txt");
  EXPECT_EQ(first_difference(mask_numbers(ours.out), mask_numbers(theirs.out)), "") << ours.out << theirs.out;
}

}  // namespace
}  // namespace sonde::test
