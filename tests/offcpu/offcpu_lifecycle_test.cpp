// What `sonde record --off-cpu` refuses, and that nothing it attaches
// outlives it: after a normal end, SIGINT, an error, or SIGKILL of the
// recorder (its BPF links are its fds). Run alone: one check looks at every
// program loaded on the machine.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "offcpu_harness.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void expect_one_line(const RunResult& r, int code, const std::string& text) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
}

TEST(OffcpuCli, BadThresholdIsAUsageErrorAndWritesNothing) {
  TempDir dir;
  for (const char* bad : {"abc", "-1", "", "1.5", "3600001"}) {
    auto r = run({sonde_bin(), "record", "--off-cpu", "--off-cpu-thresh", bad, "-o", dir / "x.data", "--", "true"});
    expect_one_line(r, 2, std::string("sonde: invalid --off-cpu-thresh '") + bad + "'");
    EXPECT_FALSE(exists(dir / "x.data")) << bad;
  }
}

TEST(OffcpuCli, ThresholdWithoutOffCpuIsAUsageError) {
  TempDir dir;
  auto r = run({sonde_bin(), "record", "--off-cpu-thresh", "10", "-o", dir / "x.data", "--", "true"});
  expect_one_line(r, 2, "sonde: --off-cpu-thresh needs --off-cpu");
  EXPECT_FALSE(exists(dir / "x.data"));
}

TEST(OffcpuCli, WithoutBpfOneLineAndExitOne) {
  // No capabilities at all (a root process without CAP_BPF/CAP_SYS_ADMIN/
  // CAP_PERFMON): the program cannot be loaded. dummy:u, so that the
  // sampling event itself opens under perf_event_paranoid 2.
  TempDir dir;
  auto r = run({"setpriv", "--bounding-set=-all", "--inh-caps=-all", sonde_bin(), "record", "-e", "dummy:u",
                "--off-cpu", "-o", dir / "x.data", "--", "true"});
  expect_one_line(r, 1, "sonde: off-cpu: cannot load the BPF program");
  EXPECT_FALSE(exists(dir / "x.data"));
}

// Starts `sonde record ARGS` and waits until its `links` off-CPU links
// exist: sched_switch, and task_newtask + sched_process_exit unless -a.
pid_t start_recorder(const std::vector<std::string>& args, size_t links, BpfIds& ids) {
  return start_sonde_until(args, [links](const BpfIds& held) { return held.links.size() >= links; }, ids);
}

TEST(OffcpuLifecycle, NothingStaysAfterTheWorkloadEnds) {
  TempDir dir;
  BpfIds ids;
  pid_t rec =
      start_recorder({"record", "-q", "-e", "dummy", "--off-cpu", "-o", dir / "a.data", "--", "sleep", "0.5"}, 3, ids);
  ASSERT_EQ(ids.links.size(), 3u);
  int st = wait_status(rec);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_TRUE(bpf_ids_gone(ids));
}

TEST(OffcpuLifecycle, NothingStaysAfterSigint) {
  TempDir dir;
  BpfIds ids;
  pid_t rec = start_recorder({"record", "-q", "-a", "-e", "dummy", "--off-cpu", "-o", dir / "b.data"}, 1, ids);
  ASSERT_EQ(ids.links.size(), 1u) << "-a follows no forks: sched_switch only";
  // Until an off-CPU sample is in the file (they are flushed as they come).
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "b.data", "-F", "event"});
    return count_lines_with(s.out, "offcpu-time") > 0;
  }));
  kill(rec, SIGINT);
  int st = wait_status(rec);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_TRUE(bpf_ids_gone(ids));
  auto script = run({sonde_bin(), "script", "-i", dir / "b.data", "-F", "comm,pid,tid,period,event,ip,sym"});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_GT(count_lines_with(script.out, "offcpu-time"), 0u);
}

TEST(OffcpuLifecycle, SigkillKeepsWhatWasFlushedAndFreesEverything) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("offcpu_waits.c", dir / "waits", "-O2 -fno-omit-frame-pointer -pthread"));
  BpfIds ids;
  pid_t rec = start_recorder(
      {"record", "-q", "-e", "dummy", "--off-cpu", "-o", dir / "c.data", "--", dir / "waits", "loop"}, 3, ids);
  ASSERT_EQ(ids.links.size(), 3u);
  // Until a nap's off-CPU sample is in the file: what the recorder flushed
  // before it is killed.
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "c.data", "-F", "comm,sym"});
    for (const auto& line : lines(s.out))
      if (line.find("nap") == 0 || line.find(" nap") != std::string::npos) return true;
    return false;
  }));
  // The workload outlives its recorder: end it too, by pid.
  const std::vector<pid_t> children = children_of(rec);
  kill(rec, SIGKILL);
  wait_status(rec);
  for (pid_t child : children) kill(child, SIGKILL);
  EXPECT_TRUE(bpf_ids_gone(ids));
  auto script = run({sonde_bin(), "script", "-i", dir / "c.data", "-F", "comm,pid,tid,period,event,ip,sym"});
  auto samples = parse_script(script.out);
  ASSERT_FALSE(samples.empty()) << script.err;
  size_t naps = 0;
  for (const auto& s : samples) naps += s.comm == "nap" && s.has("nap");
  EXPECT_GT(naps, 0u) << "flushed at least every 100 ms, so a killed recorder keeps them";
}

TEST(OffcpuLifecycle, NothingStaysAfterAnError) {
  // The output cannot be created: the recorder fails after the program was
  // loaded and attached.
  auto r = run({sonde_bin(), "record", "-e", "dummy", "--off-cpu", "-o", "/nonexistent/dir/x.data", "--", "true"});
  expect_one_line(r, 1, "sonde: cannot create '/nonexistent/dir/x.data'");
  wait_until([] { return count_loaded_programs("sonde_offcpu") == 0; }, std::chrono::seconds(5));
  EXPECT_EQ(count_loaded_programs("sonde_offcpu"), 0u);
}

}  // namespace
}  // namespace sonde::test
