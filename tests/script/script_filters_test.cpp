// sonde script's sample filters and time format against perf script's on the
// same recording: --comm, --pid, --tid, --time (every perf form), -S, --ns.
// The recording is sonde's, converted to perf's file mode so that perf has
// the first and last sample times its percentages need (a pipe has none).
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

constexpr const char* kFields = "comm,pid,tid,time,event,ip,sym,dso";

class ScriptFilters : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    std::string bin = *dir_ / "hot_loop";
    ASSERT_TRUE(compile_fixture("hot_loop.c", bin));
    data_ = *dir_ / "file.data";
    std::string pipe = *dir_ / "pipe.data";
    auto r = sh(sonde_bin() + " record -q -g -o " + pipe + " -- sh -c '" + bin + " 0.3; true'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run({sonde_bin(), "convert", "-i", pipe, "--to", "perf", "-o", data_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Sample times and ids from the recording itself, never from one run's timing.
    auto times = lines(sh("perf script -i " + data_ + " -F time 2>/dev/null").out);
    ASSERT_GT(times.size(), 200u);
    for (size_t i : {size_t(50), times.size() / 3, times.size() / 2, 2 * times.size() / 3}) {
      std::string t = times[i];
      t.erase(0, t.find_first_not_of(' '));
      times_.push_back(t.substr(0, t.find(':')));
    }
    auto pids = lines(sh("perf script -i " + data_ + " -F pid 2>/dev/null | sort -u").out);
    ASSERT_GE(pids.size(), 2u);
    for (auto& p : pids) {
      p.erase(p.find_last_not_of(' ') + 1);
      pids_.push_back(p.substr(p.find_first_not_of(' ')));
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  // sonde script and perf script, the same options on the same file.
  static void expect_same(const std::vector<std::string>& ours, const std::string& perfs) {
    std::vector<std::string> argv = {sonde_bin(), "script", "-i", data_, "-F", kFields};
    argv.insert(argv.end(), ours.begin(), ours.end());
    auto o = run(argv);
    auto p = sh("perf script -i " + data_ + " -F " + kFields + " " + perfs + " 2>/dev/null");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    ASSERT_EQ(p.exit_code, 0);
    EXPECT_EQ(first_difference(o.out, p.out), "") << perfs;
  }

  static TempDir* dir_;
  static std::string data_;
  static std::vector<std::string> times_, pids_;
};
TempDir* ScriptFilters::dir_ = nullptr;
std::string ScriptFilters::data_;
std::vector<std::string> ScriptFilters::times_, ScriptFilters::pids_;

}  // namespace

TEST_F(ScriptFilters, CommPidAndTidSelectWhatPerfSelects) {
  expect_same({"--comm", "hot_loop"}, "--comms hot_loop");
  expect_same({"--comms", "sh,hot_loop"}, "--comms sh,hot_loop");
  expect_same({"--pid", pids_[0]}, "--pid " + pids_[0]);
  expect_same({"--tid", pids_[1]}, "--tid " + pids_[1]);
  expect_same({"--pid", pids_[0] + "," + pids_[1]}, "--pid " + pids_[0] + "," + pids_[1]);
}

TEST_F(ScriptFilters, EveryTimeFormSelectsWhatPerfSelects) {
  const auto& t = times_;
  for (std::string spec : {t[0] + "," + t[1], t[1] + ",", "," + t[0], t[0] + "," + t[1] + " " + t[2] + "," + t[3],
                           std::string("10%/2"), std::string("0%-10%,50%-60%"), std::string("25%"),
                           std::string("10%/1,10%/3")}) {
    SCOPED_TRACE(spec);
    expect_same({"--time", spec}, "--time '" + spec + "'");
  }
}

TEST_F(ScriptFilters, SymbolFilterSelectsWhatPerfSelects) {
  expect_same({"-S", "hot_function"}, "-S hot_function");
  expect_same({"--symbols", "main,hot_function"}, "--symbols main,hot_function");
}

TEST_F(ScriptFilters, NanosecondsAsPerf) {
  expect_same({"--ns"}, "--ns");
  // sonde's own line format takes --ns too.
  auto o = run({sonde_bin(), "script", "--ns", "-i", data_});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::string first = lines(o.out).at(0);
  auto colon = first.find(": ");
  auto dot = first.rfind('.', colon);
  EXPECT_EQ(colon - dot - 1, 9u) << first;
}

TEST_F(ScriptFilters, BadTimesAreOneLineUsageErrorsBeforeOutput) {
  const std::pair<const char*, const char*> cases[] = {
      {"abc", "sonde: --time 'abc': expected START,STOP in seconds (either may be empty), or percentages (10%/2, "
              "0%-10%, 25%)\n"},
      {"1.5,x", "sonde: --time '1.5,x': 'x' is not a time in seconds (SEC[.NSEC], at most 9 decimals)\n"},
      {"2,1", "sonde: --time '2,1': STOP is before START in '2,1'\n"},
      {"1,2,3,4", "sonde: --time '1,2,3,4': separate several ranges with blanks: 'A,B C,D'\n"},
      {"3,4 1,2", "sonde: --time '3,4 1,2': ranges must be in order and must not overlap\n"},
      {"1.0123456789,", "sonde: --time '1.0123456789,': '1.0123456789' is not a time in seconds (SEC[.NSEC], at most 9 "
                        "decimals)\n"},
      {"20%/6", "sonde: --time '20%/6': percentages must be within 0%..100%\n"},
      {"0%/1", "sonde: --time '0%/1': '0%/1': the slice must be larger than 0%\n"},
      {"10%-x", "sonde: --time '10%-x': 'x' is not a percentage\n"},
      {"10%/a", "sonde: --time '10%/a': '10%/a' is not a slice (P%/N, N a whole number)\n"},
  };
  for (const auto& [spec, message] : cases) {
    auto r = run({sonde_bin(), "script", "-i", data_, "--time", spec});
    EXPECT_EQ(r.exit_code, 2) << spec;
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "") << spec;
  }
  // Numbers that are not: CLI11's one line, exit 2.
  auto pid = run({sonde_bin(), "script", "-i", data_, "--pid", "abc"});
  EXPECT_EQ(pid.exit_code, 2);
  EXPECT_EQ(pid.err, "sonde: Could not convert: --pid = abc (see sonde --help)\n");
  EXPECT_EQ(pid.out, "");
  // Percentages read the recording twice: not standard input.
  auto r = sh(sonde_bin() + " script -i - --time 10%/2 < " + data_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.out, "");
}

// -C: only the samples on these CPUs, and the side-band records whose
// sample_id names one of them (perf's filter_cpu).
TEST_F(ScriptFilters, CpuListSelectsWhatPerfSelects) {
  auto cpus = lines(sh("perf script -i " + data_ + " -F cpu 2>/dev/null | sort -u | tr -d '[] '").out);
  ASSERT_FALSE(cpus.empty());
  for (std::string list : {cpus[0], cpus.back(), std::string("0-1"), std::string("0,1")}) {
    SCOPED_TRACE(list);
    expect_same({"-C", list}, "-C " + list);
    expect_same({"--cpu", list, "--show-task-events", "--show-mmap-events"},
                "--cpu " + list + " --show-task-events --show-mmap-events");
  }
  auto bad = run({sonde_bin(), "script", "-i", data_, "-C", "2-1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, "sonde: -C: invalid CPU list '2-1' (expected e.g. 0,2-3)\n");
}

// A recording whose samples carry no CPU (perf record's default for a
// command) cannot be filtered by CPU: perf's message, exit 1, nothing printed.
TEST_F(ScriptFilters, CpuListOnARecordingWithoutCpusFailsAsPerf) {
  const std::string data = *dir_ / "nocpu.data";
  auto r = sh("perf record -q -o " + data + " -- " + (*dir_ / "hot_loop") + " 0.05 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto perf = sh("perf script -i " + data + " -C 0 2>&1");
  EXPECT_NE(perf.out.find("File does not contain CPU events. Remove -C option to proceed."), std::string::npos);
  for (const char* cmd : {"script", "report"}) {
    auto ours = run({sonde_bin(), cmd, "-i", data, "-C", "0"});
    EXPECT_EQ(ours.exit_code, 1) << cmd;
    EXPECT_EQ(ours.err, "sonde: File does not contain CPU events. Remove -C option to proceed.\n") << cmd;
    if (std::string(cmd) == "script") {
      EXPECT_EQ(ours.out, "");
    }
  }
}
