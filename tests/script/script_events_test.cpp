// --show-mmap-events and --show-task-events against perf script on the same
// recordings: sonde's (pipe mode, with and without call chains, and the same
// converted to file mode) and perf's own file-mode recording. perf's rules
// for which fields a line shows differ between a pipe and a file (a pipe
// turns ip and sym on for events with call chains), so both are compared.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class ScriptEvents : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string bin = *dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    const std::string workload = " -- sh -c '" + bin + " 0.2; true'";
    for (auto [name, g] : {std::pair{"chains.data", " -g"}, std::pair{"flat.data", ""}}) {
      auto r = sh(sonde_bin() + " record -q" + g + " -e cpu-clock -e sched:sched_process_exec -o " + (*dir_ / name) +
                  workload);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    auto r = run({sonde_bin(), "convert", "-i", *dir_ / "chains.data", "--to", "perf", "-o", *dir_ / "converted.data"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = sh("perf record -q -g -o " + (*dir_ / "perf.data") + workload + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }

  static void expect_same(const std::string& data, const std::string& options) {
    auto ours = sh(sonde_bin() + " script -i " + (*dir_ / data) + " " + options);
    auto perf = sh("perf script -i " + (*dir_ / data) + " " + options + " 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    ASSERT_EQ(perf.exit_code, 0);
    EXPECT_GT(count_lines_with(perf.out, "PERF_RECORD_"), 2u) << options;
    EXPECT_EQ(first_difference(ours.out, perf.out), "") << data << " " << options;
  }
  static TempDir* dir_;
};
TempDir* ScriptEvents::dir_ = nullptr;

}  // namespace

TEST_F(ScriptEvents, MmapAndTaskEventsPrintWhatPerfPrints) {
  for (const char* data : {"chains.data", "flat.data", "converted.data", "perf.data"}) {
    for (const char* fields : {"+period", "comm,tid,ip", "-ip", "comm,pid,tid,time,event,ip,sym,dso"}) {
      for (const char* shown : {"--show-mmap-events", "--show-task-events", "--show-mmap-events --show-task-events --ns"}) {
        SCOPED_TRACE(std::string(data) + " -F " + fields + " " + shown);
        expect_same(data, std::string("-F ") + fields + " " + shown);
      }
    }
  }
}

// perf script's default fields are sonde's -F +NAME for a NAME already shown.
TEST_F(ScriptEvents, DefaultFieldsWithEventsAsPerf) {
  for (const char* data : {"chains.data", "flat.data"}) {
    auto ours = sh(sonde_bin() + " script -F +time --show-task-events --show-mmap-events -i " + (*dir_ / data));
    auto perf = sh("perf script --show-task-events --show-mmap-events -i " + (*dir_ / data) + " 2>/dev/null");
    EXPECT_EQ(first_difference(ours.out, perf.out), "") << data;
  }
}

// sonde's own line format: the record's text after sonde's line start.
TEST_F(ScriptEvents, SondesLineFormatShowsTheRecordsToo) {
  auto r = run({sonde_bin(), "script", "--show-task-events", "--show-mmap-events", "-i", *dir_ / "chains.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count_lines_with(r.out, "PERF_RECORD_COMM exec: hot_loop:"), 1u) << r.out;
  EXPECT_GE(count_lines_with(r.out, "PERF_RECORD_FORK("), 1u);
  EXPECT_GE(count_lines_with(r.out, "PERF_RECORD_EXIT("), 1u);
  EXPECT_GE(count_lines_with(r.out, "]: r-xp "), 3u);
  auto quiet = run({sonde_bin(), "script", "-i", *dir_ / "chains.data"});
  EXPECT_EQ(count_lines_with(quiet.out, "PERF_RECORD_"), 0u);
}
