// sonde script --header against perf script --header: the header facts
// (file header numbers, one or more lines per feature, the missing
// features of a file) and then the samples, line for line, on sonde's
// recordings (pipe mode, and converted to file mode) and on perf's own
// (file mode, -z). "captured on" is the file's modification time, the same
// file for both.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class ScriptHeaderFacts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string bin = *dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    const std::string workload = " -- sh -c '" + bin + " 0.1; true'";
    auto r = sh(sonde_bin() + " record -q -g -e cpu-clock -e sched:sched_process_exec -o " + (*dir_ / "sonde.data") +
                workload);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run({sonde_bin(), "convert", "-i", *dir_ / "sonde.data", "--to", "perf", "-o", *dir_ / "converted.data"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = sh("perf record -q -z -g -e cpu-clock -e sched:sched_process_exec -o " + (*dir_ / "perf.data") + workload +
           " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
};
TempDir* ScriptHeaderFacts::dir_ = nullptr;

}  // namespace

TEST_F(ScriptHeaderFacts, HeaderAndSamplesAsPerfPrintsThem) {
  for (const char* data : {"sonde.data", "converted.data", "perf.data"}) {
    SCOPED_TRACE(data);
    const std::string args = std::string(" script --header -F comm,tid,time,event,ip,sym -i ") + (*dir_ / data);
    auto ours = sh(sonde_bin() + args);
    auto perf = sh("perf" + args + " 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    ASSERT_EQ(perf.exit_code, 0);
    EXPECT_GE(count_lines_with(perf.out, "# event : name = "), 2u) << perf.out;
    EXPECT_EQ(first_difference(ours.out, without_bpf_programs(perf.out)), "");
  }
}

TEST_F(ScriptHeaderFacts, NoHeaderWithoutTheOption) {
  auto ours = run({sonde_bin(), "script", "-i", *dir_ / "sonde.data"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(count_lines_with(ours.out, "# ========"), 0u);
}
