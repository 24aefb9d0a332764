// stat record / stat report interop with perf 6.1, both ways, and a
// recorder killed with SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "stat/stat_test_util.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

std::string events() { return " -e page-faults,cs,task-clock,syscalls:sys_enter_write,cycles "; }

TEST(StatRecord, PerfReportsSondesStreamWithTheSameCounts) {
  ASSERT_FALSE(stat_work_bin().empty());
  TempDir dir;
  std::string f = dir / "s.data";
  auto rec = sh(sonde_bin() + " stat record -x, -o " + f + events() + "-- " + stat_work_bin() + " 41 1 5 0 2>&1 >/dev/null");
  ASSERT_EQ(rec.exit_code, 0) << rec.out;
  // perf stat report has no -x: the standard tables, byte for byte.
  auto perf = sh("perf stat report -i " + f + " 2>&1");
  auto ours = sh(sonde_bin() + " stat report -i " + f + " 2>&1");
  ASSERT_EQ(ours.exit_code, 0) << ours.out;
  EXPECT_EQ(first_difference(ours.out, perf.out), "") << ours.out << perf.out;
  EXPECT_NE(perf.out.find("                 5      syscalls:sys_enter_write"), std::string::npos) << perf.out;
  // The counts printed while recording are the ones the stream holds.
  auto csv = sh(sonde_bin() + " stat report -x, -i " + f + " 2>&1");
  EXPECT_EQ(csv_counts(rec.out), csv_counts(csv.out));
}

TEST(StatRecord, SondeReportsPerfsStreamAsPerfDoes) {
  ASSERT_FALSE(stat_work_bin().empty());
  TempDir dir;
  std::string f = dir / "p.data";
  ASSERT_EQ(sh("perf stat record -o - " + events() + "-- " + stat_work_bin() + " 41 1 5 0 2>/dev/null > " + f).exit_code, 0);
  for (const char* aggr : {""}) {
    auto perf = sh(std::string("perf stat report ") + aggr + " -i " + f + " 2>&1");
    auto ours = sh(sonde_bin() + " stat report " + aggr + " -i " + f + " 2>&1");
    ASSERT_EQ(ours.exit_code, 0) << ours.out;
    EXPECT_EQ(first_difference(ours.out, perf.out), "") << aggr << "\n" << ours.out << perf.out;
  }
}

TEST(StatRecord, SystemWideIntervalsBothWays) {
  TempDir dir;
  std::string s = dir / "s.data", p = dir / "p.data";
  ASSERT_EQ(sh(sonde_bin() + " stat record --quiet -a -A -I 100 -e cs -o " + s + " -- sleep 0.25").exit_code, 0);
  ASSERT_EQ(sh("perf stat record --quiet -a -A -I 100 -e cs -o - -- sleep 0.25 > " + p).exit_code, 0);
  for (const auto& f : {s, p}) {
    auto perf = sh("perf stat report -i " + f + " 2>&1");
    auto ours = sh(sonde_bin() + " stat report -i " + f + " 2>&1");
    EXPECT_EQ(first_difference(ours.out, perf.out), "") << f << "\n" << ours.out << perf.out;
    EXPECT_GE(count_lines_with(ours.out, "CPU"), 4u) << ours.out;
  }
}

size_t file_size(const std::string& path) {
  std::ifstream in(path, std::ios::ate | std::ios::binary);
  return in ? static_cast<size_t>(in.tellg()) : 0;
}

// SIGKILL mid-recording: every complete round is still read, by both.
TEST(StatRecord, KillNineKeepsCompleteRounds) {
  TempDir dir;
  std::string f = dir / "k.data";
  pid_t child = ::fork();
  if (child == 0) {
    ::execl(sonde_bin().c_str(), "sonde", "stat", "record", "-q", "-a", "-I", "20", "-e", "cs", "-o", f.c_str(),
            nullptr);
    ::_exit(127);
  }
  // Header (~0.3 KiB) plus one round per 20 ms (3 records of 48/48/24
  // bytes): wait for several rounds by size, not by time.
  wait_until([&] { return file_size(f) >= 1200; });
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_GE(file_size(f), 1200u);
  auto perf = sh("perf stat report -i " + f + " 2>&1");
  auto ours = sh(sonde_bin() + " stat report -i " + f + " 2>&1");
  EXPECT_EQ(ours.exit_code, 0) << ours.out;
  EXPECT_GE(count_lines_with(ours.out, " cs"), 5u) << ours.out;
  EXPECT_EQ(first_difference(ours.out, perf.out), "") << ours.out << perf.out;
}

}  // namespace
}  // namespace sonde::test
