// `sonde record` errors, signals and exit codes.
#include <gtest/gtest.h>

#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

struct BadInput {
  std::vector<std::string> args;
  int exit_code;
  std::string message;  // a part of the one stderr line
};

TEST(RecordCli, BadInputIsOneLineWithTheDocumentedExitCodeAndNoOutputFile) {
  TempDir dir;
  std::string out = dir / "never.data";
  std::vector<BadInput> cases = {
      {{"-e", "no-such-event"}, 2, "unknown event 'no-such-event'"},
      {{"-e", "cpu-clock:x"}, 2, "unknown modifier"},
      {{"-e", "nosuchsys:nosuchtp"}, 2, "unknown event 'nosuchsys:nosuchtp'"},
      {{"-F", "abc"}, 2, "invalid -F 'abc'"},
      {{"-F", "0"}, 2, "invalid -F 0"},
      {{"-F", "-5"}, 2, "invalid -F '-5'"},
      {{"-c", "1x"}, 2, "invalid -c '1x'"},
      {{"-c", "0"}, 2, "invalid -c 0"},
      {{"-F", "99", "-c", "5"}, 2, "cannot be used together"},
      {{"-C", "abc"}, 2, "invalid CPU list 'abc'"},
      {{"-C", "3-1"}, 2, "invalid CPU list '3-1'"},
      {{"-C", "4095"}, 2, "is not online"},
      {{"-m", "3"}, 2, "power of two"},
      {{"--call-graph", "xyz"}, 2, "unsupported --call-graph 'xyz' (fp, dwarf[,SIZE], cfi or lbr)"},
      {{"--call-graph", "dwarf,100"}, 2, "multiple of 8 from 8 to 65528"},
      {{"--call-graph", "dwarf,0"}, 2, "multiple of 8 from 8 to 65528"},
      {{"--call-graph", "dwarf,65536"}, 2, "multiple of 8 from 8 to 65528"},
      {{"--call-graph", "dwarf,x"}, 2, "invalid --call-graph dwarf,SIZE 'x'"},
      {{"--compression-level", "23"}, 2, "zstd levels are 1 to 22"},
      {{"--buildid-mode", "maybe"}, 2, "invalid --buildid-mode"},
      {{"-p", "x12"}, 2, "invalid -p 'x12'"},
      {{"-p", "999999999"}, 1, "process 999999999 does not exist"},
      {{"-t", "999999998"}, 1, "thread 999999998 does not exist"},
      {{"-p", "1", "-a"}, 2, "-p/-t cannot be combined with -a/-C"},
      {{"-e", "%sdt_nope:probe"}, 2, "'%sdt_nope:probe'"},
      {{"--all-user", "--all-kernel"}, 2, "--all-user and --all-kernel cannot be used together"},
      {{"-B", "--buildid-mode", "kernel"}, 2, "-B and --buildid-mode cannot be used together"},
      {{"--switch-output=12X"}, 2, "invalid --switch-output '12X'"},
      {{"--switch-output=0M"}, 2, "invalid --switch-output '0M'"},
      {{"--switch-max-files", "2"}, 2, "--switch-max-files needs --switch-output"},
      {{"--switch-output", "--switch-max-files", "0"}, 2, "invalid --switch-max-files 0"},
      {{"--switch-output", "--switch-max-files", "x"}, 2, "invalid --switch-max-files 'x'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv = {sonde_bin(), "record", "-o", out};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    bool has_target = false;
    for (const auto& a : c.args) has_target |= a == "-p" || a == "-t" || a == "--";
    if (!has_target) argv.insert(argv.end(), {"--", "true"});
    auto r = run(argv);
    std::string what = ::testing::PrintToString(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << what << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << what << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << what << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << what;
    EXPECT_FALSE(file_exists(out)) << what;
  }
}

TEST(RecordCli, UnwritableOutputIsARuntimeError) {
  auto r = run({sonde_bin(), "record", "-o", "/proc/no/such/dir/x.data", "--", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot create '/proc/no/such/dir/x.data'"), std::string::npos) << r.err;
}

TEST(RecordCli, HardwareEventWithoutAPmuSaysNotSupported) {
  if (file_exists("/sys/bus/event_source/devices/cpu")) GTEST_SKIP() << "this machine has a hardware PMU";
  TempDir dir;
  // cycles falls back to cpu-clock, as perf's (tests/cli/perf_compat_test.cpp); the others are refused.
  for (std::string ev : {"instructions:u", "branch-misses"}) {
    auto r = run({sonde_bin(), "record", "-e", ev, "-o", dir / "hw.data", "--", "true"});
    EXPECT_EQ(r.exit_code, 1) << ev;
    EXPECT_EQ(r.err, "sonde: event '" + ev + "' is not supported on this machine (no hardware PMU)\n");
    EXPECT_FALSE(file_exists(dir / "hw.data"));
  }
  // LBR call stacks are a hardware PMU's too.
  auto lbr = run({sonde_bin(), "record", "--call-graph", "lbr", "-o", dir / "lbr.data", "--", "true"});
  EXPECT_EQ(lbr.exit_code, 1);
  EXPECT_EQ(lbr.err, "sonde: --call-graph lbr is not supported on this machine (no hardware PMU)\n");
  EXPECT_FALSE(file_exists(dir / "lbr.data"));
}

TEST(RecordCli, ExitsWithTheWorkloadsStatus) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("hot_loop.c", dir / "hot_loop"));
  auto r = run({sonde_bin(), "record", "-q", "-o", dir / "x.data", "--", dir / "hot_loop", "0.01", "7"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  auto missing = run({sonde_bin(), "record", "-o", dir / "y.data", "--", "/no/such/program"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot run '/no/such/program'"), std::string::npos) << missing.err;
  EXPECT_FALSE(file_exists(dir / "y.data"));
}

TEST(RecordCli, SigintStopsSystemWideRecordingCleanlyWithASummary) {
  TempDir dir;
  std::string data = dir / "a.data", err = dir / "err.txt";
  pid_t rec = spawn({sonde_bin(), "record", "-a", "-o", data}, "/dev/null", err);
  // Until samples are in the file: the recorder is in its loop.
  EXPECT_TRUE(wait_until([&] { return !read_recording(data).samples.empty(); })) << slurp(err);
  ASSERT_EQ(::kill(rec, SIGINT), 0);
  EXPECT_EQ(wait_for(rec), 0);
  std::string e = slurp(err);
  EXPECT_EQ(lines(e).size(), 1u) << e;
  EXPECT_NE(e.find("sonde record: "), std::string::npos) << e;
  EXPECT_NE(e.find(" samples, "), std::string::npos) << e;
  EXPECT_NE(e.find(" lost, "), std::string::npos) << e;
  EXPECT_NE(e.find(" bytes "), std::string::npos) << e;
  auto f = read_recording(data);
  EXPECT_EQ(f.truncated_bytes, 0u);
  EXPECT_EQ(f.bad_samples, 0u);
  EXPECT_GT(f.samples.size(), 0u);
  auto ps = run({"perf", "script", "-i", data, "-F", "comm,tid,event"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_EQ(lines(ps.out).size(), f.samples.size());
}

TEST(RecordCli, SigtermWithAWorkloadEndsTheWorkloadAndFlushes) {
  TempDir dir;
  std::string data = dir / "w.data", err = dir / "err.txt";
  pid_t rec = spawn({sonde_bin(), "record", "-o", data, "--", "sleep", "30"}, "/dev/null", err);
  // Until the workload has exec'ed sleep: the recorder set up its signals
  // before it let the workload run.
  EXPECT_TRUE(wait_until([&] { return child_running(rec, "sleep"); })) << slurp(err);
  ASSERT_EQ(::kill(rec, SIGTERM), 0);
  // The workload's status: sleep was ended by SIGTERM, not left to run its
  // 30 s (no clock is read: the status says who ended it).
  EXPECT_EQ(wait_for(rec), 128 + SIGTERM);
  EXPECT_NE(slurp(err).find(" samples, "), std::string::npos);
  auto f = read_recording(data);
  EXPECT_TRUE(f.opened);
  EXPECT_EQ(f.truncated_bytes, 0u);
}

}  // namespace

// perf's -F max: the kernel's current limit, read when recording starts.
TEST(RecordCli, FreqMaxIsTheKernelsLimit) {
  TempDir dir;
  std::string out = dir / "max.data";
  auto limit = slurp("/proc/sys/kernel/perf_event_max_sample_rate");
  limit = limit.substr(0, limit.find('\n'));
  auto r = run({sonde_bin(), "record", "-q", "-F", "max", "-o", out, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("lowered"), std::string::npos) << r.err;  // the limit is what was asked for: no warning
  // The kernel lowers its limit by itself when sampling interrupts run long:
  // the value read before or the one after the recording.
  auto after = slurp("/proc/sys/kernel/perf_event_max_sample_rate");
  after = after.substr(0, after.find('\n'));
  auto ev = run({"perf", "evlist", "-v", "-i", out});
  EXPECT_TRUE(ev.out.find("sample_freq }: " + limit + ",") != std::string::npos ||
              ev.out.find("sample_freq }: " + after + ",") != std::string::npos)
      << limit << " / " << after << "\n" << ev.out;
  auto both = run({sonde_bin(), "record", "-F", "max", "-c", "1000", "-o", out + "2", "--", "true"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("-F max and -F/-c cannot be used together"), std::string::npos) << both.err;
  EXPECT_FALSE(file_exists(out + "2"));
}
