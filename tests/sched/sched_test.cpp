// sonde sched against the real kernel and perf sched (6.1): two CPU-bound
// loops pinned to one CPU wait for each other; sched latency must show
// them, and print what perf sched latency prints for the same file, for
// sonde's recording and perf's.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/test_support.h"

namespace sonde::test {
namespace {

class Sched : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("sched_spin.c", bin(), "-O1"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string bin() { return *dir_ / "sched_spin"; }
  static std::string workload() {
    return "taskset -c 0 " + bin() + " 100000000 & taskset -c 0 " + bin() + " 100000000 & wait";
  }
  static TempDir* dir_;
};
TempDir* Sched::dir_ = nullptr;

// The lines of a view that mention the fixture, and its header lines.
// Tasks forked while recording (other sessions' builds run beside the
// tests) can be named differently where perf's thread table replaces a
// thread at its FORK (docs/trace.md); the fixture's own lines must be equal.
std::string fixture_lines(const std::string& text) {
  std::string out;
  size_t n = 0;
  for (const auto& l : lines(text))
    if (n++ < 3 || l.find("sched_spin") != std::string::npos) out += l + "\n";
  return out;
}

// The same view of one file by sonde and perf, line for line (`whole`), or
// the fixture's lines.
void expect_same_view(const std::string& data, const std::vector<std::string>& view, bool whole = false) {
  std::vector<std::string> ours_argv{sonde_bin(), "sched"}, perf_argv{"perf", "sched"};
  ours_argv.insert(ours_argv.end(), view.begin(), view.end());
  perf_argv.insert(perf_argv.end(), view.begin(), view.end());
  ours_argv.insert(ours_argv.end(), {"-i", data});
  perf_argv.insert(perf_argv.end(), {"-i", data});
  auto ours = run(ours_argv);
  auto perf = run(perf_argv);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  const std::string a = whole ? ours.out : fixture_lines(ours.out), b = whole ? perf.out : fixture_lines(perf.out);
  EXPECT_EQ(first_difference(a, b), "") << view[0] << (view.size() > 1 ? " " + view[1] : "");
  EXPECT_NE(a.find("sched_spin"), std::string::npos) << ours.out;
}

// Sorted lines: perf's summary lists a few exited tasks among the live ones
// (docs/trace.md), so the -s tables are compared as sets of rows.
std::string sorted_lines(const std::string& text) {
  auto v = lines(text);
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& l : v) out += l + "\n";
  return out;
}

// Both loops appear (one row: perf merges tasks of one name), and every
// view prints what perf sched prints of the same file.
void expect_views_match_perf(const std::string& data) {
  auto latency = run({sonde_bin(), "sched", "latency", "-i", data});
  EXPECT_NE(latency.out.find("  sched_spin:(2) "), std::string::npos) << latency.out;
  expect_same_view(data, {"latency"}, true);
  expect_same_view(data, {"timehist"});
  expect_same_view(data, {"timehist", "-w"});
  expect_same_view(data, {"timehist", "--state"});
  expect_same_view(data, {"map"});
  auto ours = run({sonde_bin(), "sched", "timehist", "-s", "-i", data});
  auto perf = run({"perf", "sched", "timehist", "-s", "-i", data});
  EXPECT_EQ(first_difference(sorted_lines(fixture_lines(ours.out)), sorted_lines(fixture_lines(perf.out))), "");
  EXPECT_NE(ours.out.find("sched_spin["), std::string::npos) << ours.out;
}

TEST_F(Sched, ViewsOfSondesRecordingAsPerfShowsThem) {
  auto data = *dir_ / "sonde.sched";
  auto r = run({sonde_bin(), "sched", "record", "-o", data, "--", "sh", "-c", workload()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_views_match_perf(data);
}

TEST_F(Sched, ViewsOfPerfsRecordingAsPerfShowsThem) {
  auto data = *dir_ / "perf.sched";
  auto r = run({"perf", "sched", "record", "-o", data, "--", "sh", "-c", workload()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_views_match_perf(data);
}

TEST_F(Sched, ScriptIsSondeScript) {
  auto data = *dir_ / "script.sched";
  ASSERT_EQ(run({sonde_bin(), "sched", "record", "-o", data, "--", bin(), "1000000"}).exit_code, 0);
  auto a = run({sonde_bin(), "sched", "script", "-i", data});
  auto b = run({sonde_bin(), "script", "-i", data});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("sched:sched_switch:"), std::string::npos);
}

}  // namespace
}  // namespace sonde::test
