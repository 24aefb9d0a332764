// Stopping a system-wide recording on busy CPUs: sampling stops at once
// (the events are disabled before anything else), what the buffers hold is
// drained, the workload is ended and the summary printed. `timeout` bounds
// the run: a hang shows as its SIGKILL (137), not as a slow pass.
#include <gtest/gtest.h>

#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

// Busy loops on every CPU, started by the test and killed by their pids.
struct BusyLoops {
  std::vector<pid_t> pids;
  BusyLoops(const std::string& fixture, long n) {
    for (long i = 0; i < n; ++i) pids.push_back(spawn({fixture, "60"}));
  }
  ~BusyLoops() {
    for (pid_t p : pids) {
      ::kill(p, SIGKILL);
      wait_for(p);
    }
  }
};

TEST(RecordStop, SigtermOnBusyCpusEndsPromptlyWithASummaryAndAWholeStream) {
  TempDir dir;
  std::string fixture = dir / "hot_loop", data = dir / "busy.data", err = dir / "err.txt";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  BusyLoops busy(fixture, ::sysconf(_SC_NPROCESSORS_ONLN));
  // -F max (cpu-clock, a timer: the kernel does not lower its limit for it)
  // with call chains on every busy CPU, 4-page buffers: the buffers
  // overflow and the recorder competes with the interrupts. Stopped once
  // samples are being written, so the machine stays usable for the other
  // tests.
  pid_t rec = spawn({"timeout", "-s", "KILL", "60", sonde_bin(), "record", "-a", "-g", "-F", "max", "-m", "4", "-o",
                     data, "--", "sleep", "30"},
                    "/dev/null", err);
  // Until the file is well past its preamble (the synthesis of every
  // process is a few hundred KB): the drains write samples under load. Its
  // size, not its contents: parsing a file that grows by megabytes a second
  // would compete with the overload for the CPUs.
  EXPECT_TRUE(wait_until([&] {
    struct stat st {};
    return ::stat(data.c_str(), &st) == 0 && st.st_size > (16 << 20);
  })) << slurp(err);
  ASSERT_EQ(::kill(rec, SIGTERM), 0);  // timeout hands it on to sonde and sleep
  EXPECT_EQ(wait_for(rec), 128 + SIGTERM) << slurp(err);  // sleep's status
  std::string e = slurp(err);
  EXPECT_NE(e.find("sonde record: "), std::string::npos) << e;
  EXPECT_NE(e.find(" samples, "), std::string::npos) << e;
  auto f = read_recording(data);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.truncated_bytes, 0u);
  EXPECT_EQ(f.reader_error, "");
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_GT(f.samples_of_pid(static_cast<uint32_t>(busy.pids.front())), 0u);
  auto report = run({sonde_bin(), "report", "-i", data});
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

// The order itself: events are disabled before the workload hears of the
// signal. This workload answers SIGTERM by becoming the hot loop (same pid,
// exit status 7): none of that may be in the recording. (Before, sonde
// forwarded the signal and recorded on until the workload exited.)
TEST(RecordStop, SamplingStopsBeforeTheWorkloadIsEnded) {
  TempDir dir;
  std::string fixture = dir / "hot_loop", data = dir / "w.data", started = dir / "started";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  std::string script = "trap 'exec " + fixture + " 0.5 7' TERM; touch " + started + "; while :; do sleep 0.05; done";
  // --foreground: the signal goes to sonde alone, not to its process group.
  pid_t rec = spawn({"timeout", "--foreground", "-s", "KILL", "60", sonde_bin(), "record", "-o", data, "--", "sh",
                     "-c", script});
  ASSERT_TRUE(wait_until([&] { return file_exists(started); }));
  ASSERT_EQ(::kill(rec, SIGTERM), 0);
  EXPECT_EQ(wait_for(rec), 7);  // the workload got SIGTERM and ran the hot loop
  auto f = read_recording(data);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.truncated_bytes, 0u);
  auto comms = run({sonde_bin(), "script", "-i", data, "-F", "comm"});
  ASSERT_EQ(comms.exit_code, 0) << comms.err;
  EXPECT_EQ(count_lines_with(comms.out, "hot_loop"), 0u);
  for (const auto& m : f.mmap2) EXPECT_NE(m.filename, fixture);
}

}  // namespace
