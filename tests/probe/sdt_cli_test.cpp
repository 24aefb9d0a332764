// `sonde record -e '%provider:event'` end to end, read back with perf script.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "format/session.h"
#include "format/stream_reader.h"
#include "probe/sdt_format.h"
#include "probe/sdt_harness.h"
#include "probe/sdt_note.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

// Records a running target with `sonde record -p`, sends the recorder `sig`
// once the probes are live, and checks that every probe site and the
// semaphore are back as they were. Returns the recorder's wait status.
int record_then_signal(const TempDir& dir, int sig) {
  FormsTarget target(dir / "forms");
  EXPECT_EQ(target.semaphore("guarded"), 0);
  EXPECT_EQ(target.probe_bytes(), target.nops());

  pid_t rec = fork();
  if (rec == 0) {
    setenv("SONDE_BUILDID_DIR", (dir / "cache").c_str(), 1);
    std::string p = std::to_string(target.pid());
    execl(sonde_bin().c_str(), "sonde", "record", "-q", "-p", p.c_str(), "-e", "%sfix:*", "-o",
          (dir / "out").c_str(), nullptr);
    _exit(127);
  }
  // Wait until the probes are live in the target.
  EXPECT_TRUE(wait_until([&] { return target.semaphore("guarded") == 1; }));
  EXPECT_EQ(target.probe_bytes(), target.int3s());
  // Until a hit (every 10 ms) is in the recording.
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "out", "-F", "event"});
    return count_lines_with(s.out, "%sfix:guarded:") > 0;
  }));
  kill(rec, sig);
  int status = 0;
  waitpid(rec, &status, 0);
  auto r = run({sonde_bin(), "sdt", "list", dir / "forms"});  // one more sonde command
  EXPECT_EQ(r.exit_code, 0);
  // Link release is asynchronous to the process exit, and per-site events
  // are released one by one (~0.1 s each).
  EXPECT_TRUE(target.wait_detached(5));
  EXPECT_EQ(target.semaphore("guarded"), 0);
  EXPECT_EQ(target.probe_bytes(), target.nops());
  std::ifstream ue("/sys/kernel/tracing/uprobe_events");
  std::string events((std::istreambuf_iterator<char>(ue)), {});
  EXPECT_EQ(events.find("sfix"), std::string::npos) << events;
  return status;
}

// The recording tests once per attach route (SONDE_SDT_ATTACH, inherited by
// the sonde processes they start): the stream must read the same.
class SdtCliRoute : public ::testing::TestWithParam<const char*> {
 protected:
  ScopedSdtAttachRoute route_{GetParam()};
};

INSTANTIATE_TEST_SUITE_P(Routes, SdtCliRoute, ::testing::ValuesIn(kSdtRoutes),
                         [](const auto& info) { return sdt_route_test_name(info.param); });

}  // namespace

TEST_P(SdtCliRoute, RecordAndPerfScriptShowTheProbeNames) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  std::string env = "SONDE_BUILDID_DIR='" + dir / "cache" + "' ";
  auto r = sh(env + "SONDE_SDT_TIMING=1 '" + sonde_bin() + "' record -q -e cpu-clock -e '%sfix:*' -o '" +
              dir / "out" + "' -- '" + dir / "forms" + "' 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The route taken: one link for the file, or one per site.
  EXPECT_NE(r.err.find(std::string("9 sites, ") + (GetParam() == std::string("multi") ? "1 links" : "9 links")),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("guarded_hits=5"), std::string::npos) << r.out;
  auto p = sh("perf script -i '" + dir / "out" + "' -F event 2>&1");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  for (const char* n : {"plain", "guarded", "regs", "stack", "consts", "globals", "subregs", "memory", "riprel"})
    EXPECT_EQ(count_lines_with(p.out, std::string("%sfix:") + n + ":"), 5u) << n << "\n" << p.out.substr(0, 2000);
}

TEST(SdtCli, UnknownProbeIsAUsageErrorWithoutOutput) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto r = sh("SONDE_BUILDID_DIR='" + dir / "cache" + "' '" + sonde_bin() + "' record -q -e '%sfix:nosuch' -o '" +
              dir / "out" + "' -- '" + dir / "forms" + "' 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("no probe matches '%sfix:nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(access((dir / "out").c_str(), F_OK), 0);
  EXPECT_EQ(r.out.find("guarded_hits"), std::string::npos);  // the workload never ran
}

TEST(SdtCli, BadAttachRouteIsAOneLineUsageErrorWithoutOutput) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto r = sh("SONDE_SDT_ATTACH=perf_events SONDE_BUILDID_DIR='" + dir / "cache" + "' '" + sonde_bin() +
              "' record -q -e '%sfix:plain' -o '" + dir / "out" + "' -- '" + dir / "forms" + "' 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("SONDE_SDT_ATTACH='perf_events' is not one of auto, multi, perf-event"), std::string::npos)
      << r.err;
  EXPECT_NE(access((dir / "out").c_str(), F_OK), 0);
  EXPECT_EQ(r.out.find("guarded_hits"), std::string::npos);  // the workload never ran
}

TEST_P(SdtCliRoute, KillNineOfTheRecorderLeavesNoProbe) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  int status = record_then_signal(dir, SIGKILL);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
}

TEST_P(SdtCliRoute, InterruptedRecorderDetachesAndKeepsItsSamples) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  int status = record_then_signal(dir, SIGINT);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto p = sh("perf script -i '" + dir / "out" + "' -F event 2>&1");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_GT(count_lines_with(p.out, "%sfix:guarded:"), 0u) << p.out.substr(0, 2000);
}

TEST_P(SdtCliRoute, RecordedSamplesDecodeThroughTheSessionForScript) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir / "forms", "-O2"));
  auto r = sh("SONDE_BUILDID_DIR='" + dir / "cache" + "' '" + sonde_bin() + "' record -q -e '%sfix:*' -o '" +
              dir / "out" + "' -- '" + dir / "forms" + "' 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reader = sonde::format::open_recording(dir / "out");
  ASSERT_TRUE(reader);
  sonde::format::Session session;
  sonde::format::RecordView rec;
  std::map<std::string, size_t> seen;
  while (reader->next(rec)) {
    if (session.observe(rec) || rec.header.type != sonde::format::kSample) continue;
    sonde::format::Sample s;
    std::string why;
    ASSERT_TRUE(session.decode_sample(rec, s, &why)) << why;
    std::string extra;
    ASSERT_TRUE(sonde::probe::sdt_extra_fields(s, extra) || s.event->name == "%sfix:plain") << s.event->name;
    ++seen[s.event->name + " " + extra];
  }
  EXPECT_EQ((seen["%sfix:riprel arg1=-42 arg2=1234605616436508552 arg3=-2 arg4=-2 arg5=-17 arg6=16"]), 2u);
  EXPECT_EQ((seen["%sfix:subregs arg1=-2 arg2=129 arg3=-2 arg4=4294967280 arg5=-1 arg6=9029"]), 2u);
  EXPECT_EQ((seen["%sfix:guarded arg1=1"]), 1u);
  EXPECT_EQ((seen["%sfix:consts arg1=-7 arg2=200 arg3=-300 arg4=3000000000 arg5=-9 arg6=77"]), 2u);
  size_t total = 0;
  for (const auto& [k, n] : seen) total += n;
  EXPECT_EQ(total, 18u);
}
