// Lost samples counted once, and the same by sonde and perf 6.1, on both
// recorders' files. A recorder stopped (SIGSTOP) while its workload runs on
// fills its one-page buffers: the kernel drops samples for certain.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

// "# Total Lost Samples: N" of a report (perf's line, and sonde's), or -1.
long long total_lost(const std::string& report) {
  std::smatch m;
  static const std::regex re("# Total Lost Samples: ([0-9]+)");
  return std::regex_search(report, m, re) ? std::stoll(m[1]) : -1;
}

// CPU time (user + system, in clock ticks) a process has used, or -1.
long long cpu_ticks(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  return utime + stime;
}

// Runs a recorder (argv, ending in the command) and freezes it once its
// workload runs, until the workload has used 0.3 s of CPU: at 4000 Hz that
// is ~1200 samples, far more than one page holds, however loaded the
// machine is (a fixed freeze loses nothing when the workload gets no CPU).
int record_with_a_frozen_recorder(std::vector<std::string> argv, const std::string& fixture,
                                  const std::string& started, const std::string& err) {
  argv.insert(argv.end(), {"sh", "-c", "echo $$ > " + started + ".tmp; mv " + started + ".tmp " + started +
                                           "; exec " + fixture + " 4"});
  pid_t rec = spawn(argv, "/dev/null", err);
  wait_until([&] { return file_exists(started); });
  pid_t workload = static_cast<pid_t>(std::atoi(slurp(started).c_str()));
  // Until the shell has exec'ed the fixture: the workload runs.
  const std::string name = fixture.substr(fixture.rfind('/') + 1);
  wait_until([&] { return comm_of(workload) == name || comm_of(workload).empty(); });
  ::kill(rec, SIGSTOP);
  long long start = cpu_ticks(workload), per_second = ::sysconf(_SC_CLK_TCK);
  wait_until([&] {
    long long now = cpu_ticks(workload);
    return start < 0 || now < 0 || (now - start) * 10 >= per_second * 3;
  });
  ::kill(rec, SIGCONT);
  return wait_for(rec);
}

class RecordLost : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_)); }
  void expect_sonde_and_perf_agree(const std::string& data, long long at_least) {
    auto perf = run({"perf", "report", "--stdio", "-i", data});
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    auto ours = run({sonde_bin(), "report", "-i", data});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_GE(total_lost(perf.out), at_least) << perf.out.substr(0, 400);
    EXPECT_EQ(total_lost(ours.out), total_lost(perf.out)) << ours.out.substr(0, 400);
  }
  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string err_ = dir_ / "err.txt";
  std::string started_ = dir_ / "started";
};

TEST_F(RecordLost, PerfCountsWhatSondeLost) {
  std::string data = dir_ / "sonde.data";
  int status = record_with_a_frozen_recorder({sonde_bin(), "record", "-m", "1", "-F", "4000", "-o", data, "--"},
                                             fixture_, started_, err_);
  ASSERT_EQ(status, 0) << slurp(err_);
  auto f = read_recording(data);
  ASSERT_GT(f.lost, 0u);  // what the kernel's LOST records say
  // The summary, sonde's report and perf's report: the same number.
  EXPECT_NE(slurp(err_).find(", " + std::to_string(f.lost) + " lost, "), std::string::npos) << slurp(err_);
  expect_sonde_and_perf_agree(data, static_cast<long long>(f.lost));
  auto ours = run({sonde_bin(), "report", "-i", data});
  EXPECT_EQ(total_lost(ours.out), static_cast<long long>(f.lost));
}

TEST_F(RecordLost, SondeCountsWhatPerfLostOnce) {
  // perf writes the kernel's LOST records and, at the end, LOST_SAMPLES for
  // the same samples: adding both doubled the count.
  std::string data = dir_ / "perf.data";
  int status = record_with_a_frozen_recorder({"perf", "record", "-m", "1", "-F", "4000", "-o", data, "--"},
                                             fixture_, started_, err_);
  ASSERT_EQ(status, 0) << slurp(err_);
  auto f = read_recording(data);
  ASSERT_GT(f.lost, 0u);
  expect_sonde_and_perf_agree(data, 1);
}

}  // namespace
