// sonde record --off-cpu against the real kernel: the fixture's threads
// block for known times in known functions (tests/fixtures/offcpu_waits.c),
// and the recording must say where and how long, for sonde and perf alike.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "offcpu_harness.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

const char* kScriptFields = "comm,pid,tid,period,event,ip,sym";

class OffcpuRecord : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("offcpu_waits.c", bin(), "-O2 -fno-omit-frame-pointer -pthread"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string bin() { return *dir_ / "offcpu_waits"; }
  static TempDir* dir_;
};
TempDir* OffcpuRecord::dir_ = nullptr;

// `sonde record --off-cpu --off-cpu-thresh 10 -o DATA -- WORKLOAD...`: every
// 20-50 ms block of the fixture one sample with its own time.
RunResult record_blocks(const std::string& data, const std::vector<std::string>& workload) {
  std::vector<std::string> argv = {sonde_bin(), "record", "-e", "dummy", "--off-cpu", "--off-cpu-thresh", "10",
                                   "-o", data, "--"};
  argv.insert(argv.end(), workload.begin(), workload.end());
  return run(argv);
}

// `sonde script`'s samples of a recording (none when script fails, which
// the check names).
std::vector<ScriptSample> script_samples(const std::string& data) {
  auto script = run({sonde_bin(), "script", "-i", data, "-F", kScriptFields});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  return parse_script(script.out);
}

// Off-CPU milliseconds of `event` in the samples of thread `comm` whose
// frames hold every one of `syms`.
double total_ms(const std::vector<ScriptSample>& samples, const std::string& comm, const std::string& event,
                const std::vector<std::string>& syms) {
  uint64_t ns = 0;
  for (const auto& s : samples) {
    if (s.comm != comm || s.event != event) continue;
    bool all = true;
    for (const auto& sym : syms) all &= s.has(sym);
    if (all) ns += s.period;
  }
  return static_cast<double>(ns) / 1e6;
}

// How many switch-outs the recorder says lost a stack (a stack-map slot
// held by another stack): their blocks are there, under their thread,
// without those frames.
int lost_stacks(const std::string& recorder_err) {
  std::smatch m;
  static const std::regex kLost(R"((\d+) switch-outs lost a kernel or user stack)");
  return std::regex_search(recorder_err, m, kLost) ? std::stoi(m[1]) : 0;
}

// How many blocks the recorder says it could not measure: the kernel never
// reported the thread's switch-in (docs/offcpu.md, "Known defects").
int unseen_switch_ins(const std::string& recorder_err) {
  std::smatch m;
  static const std::regex kUnseen(R"((\d+) blocks not measured: the kernel reported no switch-in)");
  return std::regex_search(recorder_err, m, kUnseen) ? std::stoi(m[1]) : 0;
}

// The three waits, against what the fixture measured itself (5%), and at
// least what it asked for (the machine may be slower, never faster).
// `recorder_err` is the recorder's stderr (not -q: it names lost stacks).
void expect_fixture_totals(const std::vector<ScriptSample>& samples, const std::map<std::string, double>& measured,
                           const std::string& recorder_err) {
  const std::string blocked = "offcpu-time";
  double nap = total_ms(samples, "nap", blocked, {"nap", "do_nanosleep", "schedule"});
  double pipe = total_ms(samples, "wait_pipe", blocked, {"wait_pipe", "schedule"});
  double pipe_read = total_ms(samples, "wait_pipe", blocked, {"wait_pipe", "anon_pipe_read"}) +
                     total_ms(samples, "wait_pipe", blocked, {"wait_pipe", "pipe_read"});
  // glibc has no frame pointers: the user chain of a futex wait ends in
  // libc's wait function (docs/offcpu.md); the thread and kernel path say
  // which wait it is.
  double cond = total_ms(samples, "wait_cond", blocked, {"futex_wait", "schedule", "__futex_abstimed_wait_common"});
  // The fixture's clock also counts a preemption between the wake-up and
  // its own end timestamp (a loaded machine): that time is off CPU too, of
  // the other kind. A preemption inside glibc (no frame pointers) has no
  // frame of the fixture's function, so it is bounded both ways: at most
  // the thread's preemptions that show the function, at least all of the
  // thread's time off CPU, whatever its stacks.
  auto preempted_in = [&](const char* wait) { return total_ms(samples, wait, "offcpu-time:preempt", {wait}); };
  auto thread_total = [&](const char* wait) {
    return total_ms(samples, wait, blocked, {}) + total_ms(samples, wait, "offcpu-time:preempt", {});
  };
  // A block whose switch-in the kernel never reported is not measured, and
  // the recorder says how many (docs/offcpu.md, "Known defects"): the lower
  // bounds allow that many blocks of `block` ms, and none unannounced.
  const int unseen = unseen_switch_ins(recorder_err);
  auto expect_measured = [&](const char* wait, double named, double asked, double block_ms) {
    const double block = unseen * block_ms;
    const double ms = measured.at(wait);
    EXPECT_LE(named + preempted_in(wait), ms * 1.05) << wait;
    EXPECT_GE(thread_total(wait), ms * 0.95 - block) << wait;
    EXPECT_GE(total_ms(samples, wait, blocked, {}), asked * 0.95 - block) << wait;
    // Under its function and kernel path: all of it, unless the recorder
    // said a stack was lost.
    if (lost_stacks(recorder_err) == 0) {
      EXPECT_GE(named, asked * 0.95 - block) << wait;
    }
  };
  expect_measured("nap", nap, 500, 50);
  expect_measured("wait_pipe", pipe, 300, 30);
  EXPECT_NEAR(pipe_read, pipe, 1e-9) << "every wait_pipe block is in the kernel's pipe read";
  expect_measured("wait_cond", cond, 200, 20);
}

TEST_F(OffcpuRecord, FixtureTotalsUnderTheirFunctionsAsSingleSamples) {
  // 10 ms threshold: every 20-50 ms block is one sample with its own time.
  auto rec = record_blocks(*dir_ / "single.data", {bin()});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "single.data");
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
  // Every nap one sample (a lost stack leaves its time under the thread).
  size_t naps = 0, named = 0;
  for (const auto& s : samples) {
    if (s.comm != "nap" || s.event != "offcpu-time" || s.period < 10000000) continue;
    ++naps;
    named += s.has("do_nanosleep");
  }
  // Less the blocks the recorder said it could not measure.
  EXPECT_GE(naps + static_cast<size_t>(unseen_switch_ins(rec.err)), 10u) << rec.err;
  EXPECT_LE(naps, 10u);
  if (lost_stacks(rec.err) == 0) {
    EXPECT_EQ(named, naps);
  }
}

TEST_F(OffcpuRecord, FixtureTotalsWhenSummedInTheKernel) {
  // The default threshold (500 ms): every block is summed per (thread,
  // stacks) in the kernel and written at least every 100 ms.
  auto rec = run({sonde_bin(), "record", "-e", "dummy", "--off-cpu", "-o", *dir_ / "summed.data", "--", bin()});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "summed.data");
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
  size_t naps = 0;
  for (const auto& s : samples)
    if (s.comm == "nap" && s.has("do_nanosleep")) ++naps;
  EXPECT_LT(naps, 10u) << "blocks of one stack are summed";
}

// The workload is a shell that forks the fixture (`; true` keeps sh from
// exec'ing it): the child is followed from its first switch-out on, and its
// threads with it (bpf/follow_forks.bpf.h).
TEST_F(OffcpuRecord, AProcessForkedByTheWorkloadIsFollowed) {
  auto rec = record_blocks(*dir_ / "forked.data", {"sh", "-c", quoted(bin()) + "; true"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "forked.data");
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
  std::set<pid_t> pids;
  for (const auto& s : samples) pids.insert(s.pid);
  EXPECT_EQ(pids.size(), 2u) << "the shell waiting for its child, and the fixture";
}

TEST_F(OffcpuRecord, WithCpuClockBothEventsAreThere) {
  auto rec = run({sonde_bin(), "record", "-g", "--off-cpu", "--off-cpu-thresh", "10", "-o", *dir_ / "both.data",
                  "--", bin(), "spin"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "both.data");
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
  size_t spin = 0;
  for (const auto& s : samples)
    if (s.event == "cpu-clock" && s.comm == "spin" && s.has("spin")) ++spin;
  EXPECT_GT(spin, 100u) << "200 ms of spin()'s CPU time at 4 kHz";
}

TEST_F(OffcpuRecord, SystemWideHasTheFixtureWithTheSameTotals) {
  // The shell's pid is the recorder's after exec: it prints it first.
  auto rec = sh("echo $$; exec " + sonde_bin() + " record -a -e dummy --off-cpu --off-cpu-thresh 10 -o " +
                (*dir_ / "all.data") + " -- " + bin());
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  const pid_t recorder = std::stoi(rec.out.substr(0, rec.out.find('\n')));
  auto samples = script_samples(*dir_ / "all.data");
  // Other processes are there (other copies of the fixture too, from tests
  // running beside this one); the recorder itself never is.
  std::set<pid_t> pids;
  for (const auto& s : samples) pids.insert(s.pid);
  EXPECT_GT(pids.size(), 1u);
  EXPECT_EQ(pids.count(recorder), 0u);
  const size_t at = rec.out.find("pid=");
  ASSERT_NE(at, std::string::npos) << rec.out;
  const pid_t fixture = std::stoi(rec.out.substr(at + 4));
  std::erase_if(samples, [&](const ScriptSample& s) { return s.pid != fixture; });
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
}

TEST_F(OffcpuRecord, AProcessOutsideTheTargetContributesNothing) {
  // Another copy of the fixture runs meanwhile, unrecorded.
  pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    execl(bin().c_str(), bin().c_str(), "loop", static_cast<char*>(nullptr));
    _exit(127);
  }
  auto rec = record_blocks(*dir_ / "outside.data", {bin()});
  kill(other, SIGKILL);
  waitpid(other, nullptr, 0);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "outside.data");
  ASSERT_FALSE(samples.empty());
  pid_t recorded = samples.front().pid;
  for (const auto& s : samples) ASSERT_EQ(s.pid, recorded) << s.comm;
  EXPECT_NE(recorded, other);
}

// The thread of `pid` named `comm`, or 0.
pid_t thread_named(pid_t pid, const std::string& comm) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(e.path() / "comm");
    std::string name;
    if (std::getline(in, name) && name == comm) return std::stoi(e.path().filename().string());
  }
  return 0;
}

// A real-time priority for the target's `nap` thread: it then runs the
// moment its timer wakes it, however loaded the machine is, so each nap's
// block ends within a tick of its 50 ms and "one nanosleep, not two summed"
// can be asserted without a load-dependent margin (root: the suite runs so).
void nap_in_real_time(pid_t pid) {
  pid_t nap = 0;
  wait_until([&] { return (nap = thread_named(pid, "nap")) != 0; }, std::chrono::seconds(1));
  ASSERT_NE(nap, 0) << "the fixture's nap thread never started";
  sched_param p{};
  p.sched_priority = 1;
  ASSERT_EQ(sched_setscheduler(nap, SCHED_FIFO, &p), 0) << "SCHED_FIFO for the nap thread";
}

TEST_F(OffcpuRecord, ExistingProcessWithDashP) {
  pid_t target = fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    execl(bin().c_str(), bin().c_str(), "loop", static_cast<char*>(nullptr));
    _exit(127);
  }
  nap_in_real_time(target);
  auto rec = run({sonde_bin(), "record", "-q", "-e", "dummy", "--off-cpu", "--off-cpu-thresh", "10", "-p",
                  std::to_string(target), "-o", *dir_ / "pid.data", "--", "sleep", "0.6"});
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "pid.data");
  // Each nap is one sample of ~50 ms (the one still asleep at the end is
  // cut there: shorter).
  size_t naps = 0;
  for (const auto& s : samples) {
    EXPECT_EQ(s.pid, target);
    if (s.comm != "nap" || !s.has("nap") || !s.has("do_nanosleep")) continue;
    const double ms = static_cast<double>(s.period) / 1e6;
    EXPECT_LT(ms, 100) << "one nanosleep, not two summed";
    naps += ms > 50 * 0.95;
  }
  EXPECT_GE(naps, 5u) << "0.6 s of 50 ms naps";
}

TEST_F(OffcpuRecord, ExistingThreadWithDashT) {
  pid_t target = fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    execl(bin().c_str(), bin().c_str(), "loop", static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_t nap = 0;
  wait_until([&] { return (nap = thread_named(target, "nap")) != 0; }, std::chrono::seconds(1));
  ASSERT_NE(nap, 0);
  auto rec = run({sonde_bin(), "record", "-q", "-e", "dummy", "--off-cpu", "--off-cpu-thresh", "10", "-t",
                  std::to_string(nap), "-o", *dir_ / "tid.data", "--", "sleep", "0.4"});
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = parse_script(run({sonde_bin(), "script", "-i", *dir_ / "tid.data", "-F", kScriptFields}).out);
  ASSERT_FALSE(samples.empty());
  for (const auto& s : samples) EXPECT_EQ(s.tid, nap) << "only the -t thread: " << s.comm;
}

TEST_F(OffcpuRecord, PerfReadsTheStreamAndNamesTheSameFunctions) {
  auto rec = record_blocks(*dir_ / "perf.data", {bin()});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto perf = run({"perf", "script", "-i", *dir_ / "perf.data", "-F", kScriptFields});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  auto samples = parse_script(perf.out);
  expect_fixture_totals(samples, fixture_ms(rec.out), rec.err);
  auto ours = run({sonde_bin(), "script", "-i", *dir_ / "perf.data", "-F", kScriptFields});
  EXPECT_EQ(first_difference(ours.out, perf.out), "");
  auto report = run({"perf", "report", "-i", *dir_ / "perf.data", "--stdio", "--sort", "sym", "--no-children"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("offcpu-time"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("nap"), std::string::npos) << report.out;
}

// Frame pointers stop in glibc (Debian builds it without them): with
// --call-graph dwarf each long block carries the user registers and stack
// of its switch-out, and the report unwinds them with the objects' CFI,
// through pthread_cond_wait into the fixture's own wait_cond().
TEST_F(OffcpuRecord, DwarfNamesTheCallersOfWaitsInsideLibc) {
  auto rec = run({sonde_bin(), "record", "-e", "dummy", "--off-cpu", "--call-graph", "dwarf", "-o",
                  *dir_ / "dwarf.data", "--", bin()});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  // No user stack copy lost (a stack-map slot lost to another stack is
  // reported too, and is not what this test is about).
  EXPECT_EQ(rec.err.find("without a user stack copy"), std::string::npos);
  const auto measured = fixture_ms(rec.out);
  for (const char* reader : {"sonde", "perf"}) {
    SCOPED_TRACE(reader);
    auto script = std::string(reader) == "perf"
                      ? run({"perf", "script", "-i", *dir_ / "dwarf.data", "-F", kScriptFields})
                      : run({sonde_bin(), "script", "-i", *dir_ / "dwarf.data", "-F", kScriptFields});
    ASSERT_EQ(script.exit_code, 0) << script.err;
    auto samples = parse_script(script.out);
    const std::string blocked = "offcpu-time";
    // The default threshold with dwarf is 1 ms: every block is its own
    // sample, each under its own function and kernel path.
    double cond = total_ms(samples, "wait_cond", blocked, {"wait_cond", "futex_wait", "schedule"});
    double nap = total_ms(samples, "nap", blocked, {"nap", "do_nanosleep", "schedule"});
    double pipe = total_ms(samples, "wait_pipe", blocked, {"wait_pipe", "schedule"});
    // As in expect_fixture_totals: what the function shows is at most what
    // the fixture measured; all the thread's time off CPU (preemptions
    // included) at least that, less the blocks the recorder said it could
    // not measure.
    const int unseen = unseen_switch_ins(rec.err);
    auto expect_measured = [&](const char* wait, double named, double block_ms) {
      const double ms = measured.at(wait);
      EXPECT_LE(named, ms * 1.05) << wait;
      const double all = total_ms(samples, wait, blocked, {}) + total_ms(samples, wait, "offcpu-time:preempt", {});
      EXPECT_GE(all, ms * 0.95 - unseen * block_ms) << wait;
      EXPECT_GE(named, total_ms(samples, wait, blocked, {}) * 0.95) << wait << ": named by its function";
    };
    expect_measured("wait_cond", cond, 20);
    expect_measured("nap", nap, 50);
    expect_measured("wait_pipe", pipe, 30);
    size_t conds = 0;
    for (const auto& s : samples)
      if (s.comm == "wait_cond" && s.event == blocked && s.has("wait_cond") && s.period >= 10000000) ++conds;
    EXPECT_LE(conds, 10u);
    EXPECT_GE(conds + static_cast<size_t>(unseen), 10u) << rec.err;
  }
}

// Without dwarf the same waits end in libc: the test above would fail
// for lack of the user frames, which is what makes it a test.
TEST_F(OffcpuRecord, FramePointersAloneStopInLibc) {
  auto rec = run({sonde_bin(), "record", "-q", "-e", "dummy", "--off-cpu", "--off-cpu-thresh", "1", "-o",
                  *dir_ / "fp.data", "--", bin()});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto samples = script_samples(*dir_ / "fp.data");
  EXPECT_EQ(total_ms(samples, "wait_cond", "offcpu-time", {"wait_cond", "futex_wait"}), 0.0);
}

TEST_F(OffcpuRecord, WallViewAddsUpToTheThreadsElapsedTime) {
  // One thread: 200 ms of spin(), then 10 x 50 ms of nap().
  auto rec = run({sonde_bin(), "record", "-q", "-g", "-e", "cpu-clock", "--off-cpu", "-o", *dir_ / "wall.data", "--",
                  bin(), "single"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  const double elapsed = fixture_ms(rec.out).at("elapsed");
  auto wall = run({sonde_bin(), "report", "-i", *dir_ / "wall.data", "--wall"});
  ASSERT_EQ(wall.exit_code, 0) << wall.err;
  // Rows are "WALL ON-CPU BLOCKED RUNNABLE  NAME ...": the thread in the
  // first table, then its functions.
  auto find_row = [&](const std::string& name, std::array<double, 4>& v) {
    for (const auto& line : lines(wall.out)) {
      std::istringstream ls(line);
      std::string first;
      if (ls >> v[0] >> v[1] >> v[2] >> v[3] >> first && first == name) return true;
    }
    return false;
  };
  std::array<double, 4> thread{}, spin{}, nap{};
  ASSERT_TRUE(find_row("offcpu_waits", thread)) << wall.out;
  EXPECT_NEAR(thread[0], elapsed, elapsed * 0.05) << wall.out;
  EXPECT_NEAR(thread[1] + thread[2] + thread[3], thread[0], 0.01);
  // spin() is on CPU or runnable, never blocked; nap() blocks. How close
  // their times come to the fixture's nominal 200 ms and 10 x 50 ms is
  // wall-clock, measured by bench/wall_view.sh, not asserted here.
  ASSERT_TRUE(find_row("spin", spin)) << wall.out;
  EXPECT_EQ(spin[2], 0) << "spin() never blocks";
  ASSERT_TRUE(find_row("nap", nap)) << wall.out;
  EXPECT_GT(nap[2], 0) << wall.out;
}

TEST_F(OffcpuRecord, WallViewWithoutOffCpuSamplesIsOneLine) {
  auto rec = run({sonde_bin(), "record", "-q", "-o", *dir_ / "cpu.data", "--", "true"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  auto wall = run({sonde_bin(), "report", "-i", *dir_ / "cpu.data", "--wall"});
  EXPECT_EQ(wall.exit_code, 1);
  EXPECT_EQ(wall.err, "sonde: --wall: the recording has no off-CPU samples (record with --off-cpu, and -e cpu-clock "
                      "for the CPU side)\n");
}

TEST_F(OffcpuRecord, ExportsTellTheKindsApart) {
  auto rec = run({sonde_bin(), "record", "-g", "-e", "cpu-clock", "--off-cpu", "-o", *dir_ / "export.data", "--",
                  bin(), "single"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  SCOPED_TRACE("recorder: " + rec.err);
  const std::string data = *dir_ / "export.data";
  // pprof: one sample type per kind, chosen with -sample_index.
  ASSERT_EQ(run({sonde_bin(), "convert", "-i", data, "--to", "pprof", "-o", *dir_ / "p.pb.gz"}).exit_code, 0);
  auto off = run({"go", "tool", "pprof", "-sample_index=off-cpu", "-top", *dir_ / "p.pb.gz"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_NE(off.out.find("Type: off-cpu\n"), std::string::npos) << off.out;
  EXPECT_NE(off.out.find(" nap\n"), std::string::npos) << off.out;
  auto cpu = run({"go", "tool", "pprof", "-sample_index=cpu", "-top", *dir_ / "p.pb.gz"});
  EXPECT_NE(cpu.out.find("Type: cpu\n"), std::string::npos) << cpu.out;
  EXPECT_NE(cpu.out.find(" spin\n"), std::string::npos) << cpu.out;
  EXPECT_EQ(cpu.out.find("do_nanosleep"), std::string::npos) << "no off-CPU time in the cpu type";
  // folded: --event picks the kind; the weights are nanoseconds.
  auto folded = run({sonde_bin(), "convert", "-i", data, "--to", "folded", "--event", "offcpu-time", "-o", "-"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  uint64_t nap_ns = 0;
  for (const auto& line : lines(folded.out))
    if (line.find(";nap;") != std::string::npos) nap_ns += std::stoull(line.substr(line.rfind(' ') + 1));
  // Less the naps the recorder said it could not measure.
  EXPECT_GE(static_cast<double>(nap_ns) / 1e6, 500 * 0.95 - 50 * unseen_switch_ins(rec.err)) << folded.out;
  EXPECT_EQ(folded.out.find(";spin"), std::string::npos) << "spin() never blocks";
  // HTML: the page knows the off-CPU kind (drawn in cold colours, and with
  // cpu-clock in one graph: PageTest.CpuAndOffCpuTimeInOneGraph).
  auto html = run({sonde_bin(), "convert", "-i", data, "--to", "html", "--event", "offcpu-time", "-o", "-"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("{\"name\":\"offcpu-time\",\"unit\":\"nanoseconds\",\"kind\":\"off\""), std::string::npos);
  auto warm = run({sonde_bin(), "convert", "-i", data, "--to", "html", "--event", "cpu-clock", "-o", "-"});
  EXPECT_NE(warm.out.find("{\"name\":\"cpu-clock\",\"unit\":\"nanoseconds\",\"kind\":\"cpu\""), std::string::npos);
  EXPECT_EQ(warm.out.find("\"kind\":\"off\""), std::string::npos);
}

}  // namespace
}  // namespace sonde::test
