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

uint64_t load_base(pid_t pid, const std::string& path) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(path) == std::string::npos) continue;
    std::istringstream ls(line);
    std::string range, perms, off;
    ls >> range >> perms >> off;
    if (std::stoull(off, nullptr, 16) == 0) return std::stoull(range.substr(0, range.find('-')), nullptr, 16);
  }
  return 0;
}

template <typename T>
T read_mem(pid_t pid, uint64_t addr) {
  T v{};
  int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (fd >= 0) {
    if (pread(fd, &v, sizeof v, static_cast<off_t>(addr)) != sizeof v) v = T{};
    close(fd);
  }
  return v;
}

// Records a running target with `sonde record -p`, sends the recorder `sig`
// once the probes are live, and checks that every probe site and the
// semaphore are back as they were. Returns the recorder's wait status.
int record_then_signal(const TempDir& dir, int sig) {
  pid_t target = fork();
  if (target == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    execl((dir / "forms").c_str(), "forms", "1", "loop", nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto file = sonde::probe::scan_sdt_file(dir / "forms");
  uint64_t sem = 0;
  for (const auto& s : file.sites)
    if (s.name == "guarded") sem = s.semaphore;
  uint64_t base = load_base(target, dir / "forms");
  EXPECT_NE(base, 0u);
  auto probe_bytes = [&] {
    std::vector<int> b;
    for (const auto& s : file.sites) b.push_back(read_mem<uint8_t>(target, base + s.pc));
    return b;
  };
  const std::vector<int> nops(file.sites.size(), 0x90), int3s(file.sites.size(), 0xcc);
  EXPECT_EQ(read_mem<uint16_t>(target, base + sem), 0);
  EXPECT_EQ(probe_bytes(), nops);

  pid_t rec = fork();
  if (rec == 0) {
    setenv("SONDE_BUILDID_DIR", (dir / "cache").c_str(), 1);
    std::string p = std::to_string(target);
    execl(sonde_bin().c_str(), "sonde", "record", "-q", "-p", p.c_str(), "-e", "%sfix:*", "-o",
          (dir / "out").c_str(), nullptr);
    _exit(127);
  }
  // Wait until the probes are live in the target.
  bool live = false;
  for (int i = 0; i < 500 && !live; ++i) {
    live = read_mem<uint16_t>(target, base + sem) == 1;
    if (!live) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(live);
  EXPECT_EQ(probe_bytes(), int3s);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a few hits (every 10 ms)
  kill(rec, sig);
  int status = 0;
  waitpid(rec, &status, 0);
  auto r = run({sonde_bin(), "sdt", "list", dir / "forms"});  // one more sonde command
  EXPECT_EQ(r.exit_code, 0);
  // Link release is asynchronous to the process exit, and per-site events
  // are released one by one (~0.1 s each).
  for (int i = 0; i < 500 && (read_mem<uint16_t>(target, base + sem) != 0 || probe_bytes() != nops); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(read_mem<uint16_t>(target, base + sem), 0);
  EXPECT_EQ(probe_bytes(), nops);
  std::ifstream ue("/sys/kernel/tracing/uprobe_events");
  std::string events((std::istreambuf_iterator<char>(ue)), {});
  EXPECT_EQ(events.find("sfix"), std::string::npos) << events;
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
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
  auto reader = sonde::perf::open_recording(dir / "out");
  ASSERT_TRUE(reader);
  sonde::perf::Session session;
  sonde::perf::RecordView rec;
  std::map<std::string, size_t> seen;
  while (reader->next(rec)) {
    if (session.observe(rec) || rec.header.type != sonde::perf::kSample) continue;
    sonde::perf::Sample s;
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
