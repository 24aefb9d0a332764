// Without -i, report and script read sonde.data, or perf.data when only that
// one is in the current folder (what a perf user has lying around).
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class DefaultInput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string bin = dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    auto r = sh("cd " + dir_.path() + " && " + sonde_bin() + " record -q -o perf.data -- ./hot_loop 0.1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  RunResult in_dir(const std::string& args) { return sh("cd " + dir_.path() + " && " + sonde_bin() + " " + args); }
  TempDir dir_;
};

}  // namespace

TEST_F(DefaultInput, ReportAndScriptReadPerfDataWhenThereIsNoSondeData) {
  auto report = in_dir("report --no-children --sort sym");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("hot_function"), std::string::npos) << report.out;
  auto script = in_dir("script");
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_NE(script.out.find("hot_loop"), std::string::npos);
}

TEST_F(DefaultInput, SondeDataComesFirst) {
  // An empty sonde.data is read (and is not a recording) although perf.data is there.
  ASSERT_EQ(sh("cd " + dir_.path() + " && : > sonde.data").exit_code, 0);
  auto script = in_dir("script");
  EXPECT_EQ(script.exit_code, 1);
  EXPECT_NE(script.err.find("sonde.data"), std::string::npos) << script.err;
  auto report = in_dir("report");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_NE(report.err.find("sonde.data"), std::string::npos) << report.err;
}

TEST_F(DefaultInput, HelpSaysSo) {
  for (const char* cmd : {"report", "script"}) {
    auto r = run({sonde_bin(), cmd, "--help"});
    EXPECT_NE(r.out.find("perf.data if only that exists"), std::string::npos) << cmd << "\n" << r.out;
  }
}
