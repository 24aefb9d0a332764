// `sonde record --call-graph cfi` on Debian's own binaries (built without
// frame pointers): the share of samples whose chain reaches the root
// (_start, __libc_start_main, clone) is within 2 points of --call-graph
// dwarf's on the same workload; perf report reads the recording and names
// the same rows as sonde report; -p works; bad input is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "../offcpu/offcpu_harness.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

bool reaches_root(const ScriptSample& s) {
  for (const auto& f : s.syms)
    if (f == "_start" || f.starts_with("__libc_start_main") || f == "__libc_start_call_main" || f == "clone" ||
        f == "clone3" || f == "start_thread")
      return true;
  return false;
}

struct Reach {
  size_t samples = 0, rooted = 0;
  double percent() const { return samples ? 100.0 * static_cast<double>(rooted) / static_cast<double>(samples) : 0; }
};

// The N of a recorder warning "... N <what> ..." (0 when it did not warn).
size_t announced_count(const std::string& err, const std::string& what) {
  size_t at = err.find(what);
  if (at == std::string::npos) return 0;
  size_t end = err.rfind(' ', at);  // the space before `what`
  size_t start = err.rfind(' ', end - 1);
  return std::stoul(err.substr(start + 1, end - start - 1));
}

// `script -F ip,sym,dso`'s samples, each its frame lines (leaf first).
std::vector<std::string> split_samples(const std::string& text) {
  std::vector<std::string> out(1);
  for (const auto& l : lines(text)) {
    if (!l.empty()) out.back() += l + "\n";
    else if (!out.back().empty()) out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

Reach root_reach(const std::string& data) {
  auto r = run({sonde_bin(), "script", "-i", data, "-F", "comm,pid,tid,period,event,ip,sym"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Reach reach;
  for (const auto& s : parse_script(r.out)) {
    ++reach.samples;
    reach.rooted += reaches_root(s);
  }
  return reach;
}

// The inputs the compressors read: object files (not random: they compress),
// sized for about a second of work each, so that a process's first
// milliseconds (before the recorder knows its mappings) weigh little.
std::string make_input(const TempDir& dir) {
  std::string path = dir / "input.bin";
  sh("head -c 3000000 /usr/lib/x86_64-linux-gnu/libc.so.6 > " + sonde::test::quoted(path));
  sh("cat /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/libc.so.6 > " + sonde::test::quoted(dir / "big.bin"));
  sh("seq 1 1500000 | sed 's/$/ line/' > " + sonde::test::quoted(dir / "lines.txt"));
  return path;
}

struct Workload {
  const char* name;
  std::vector<std::string> (*argv)(const TempDir& dir);
};

std::vector<std::string> xz(const TempDir& d) { return {"/usr/bin/xz", "-9", "-k", "-c", "-T1", d / "input.bin"}; }
std::vector<std::string> gzip_(const TempDir& d) { return {"/usr/bin/gzip", "-9", "-c", d / "big.bin"}; }
std::vector<std::string> sort_(const TempDir& d) {
  return {"/usr/bin/sort", "-r", "--parallel=1", "-o", d / "sorted.txt", d / "lines.txt"};
}
std::vector<std::string> python(const TempDir&) { return {"/usr/bin/python3", "-c", "s=0\nfor i in range(6000000): s+=i*i"}; }
std::vector<std::string> perl(const TempDir&) { return {"/usr/bin/perl", "-e", "my $s=0; $s += $_*$_ for 1..25000000"}; }

void PrintTo(const Workload& w, std::ostream* os) { *os << w.name; }

class CfiRootReach : public ::testing::TestWithParam<Workload> {};

TEST_P(CfiRootReach, WithinTwoPointsOfDwarf) {
  TempDir dir;
  make_input(dir);
  std::vector<std::string> cmd = GetParam().argv(dir);
  auto record = [&](const std::string& mode, const std::string& out) {
    std::vector<std::string> argv = {sonde_bin(), "record", "--call-graph", mode, "-o", out, "--"};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.err;
  };
  const std::string cfi_err = record("cfi", dir / "cfi.data");
  record("dwarf", dir / "dwarf.data");
  Reach cfi = root_reach(dir / "cfi.data"), dwarf = root_reach(dir / "dwarf.data");
  ASSERT_GT(cfi.samples, 100u);
  ASSERT_GT(dwarf.samples, 100u);
  // Samples taken before their mapping's table was loaded (a loaded machine
  // delays the table compiler) keep only their leaf, and the recorder says
  // how many: those are announced, not missed, and leave the comparison.
  const size_t early = announced_count(cfi_err, "samples met code whose mapping had no table yet");
  ASSERT_LT(early, cfi.samples);
  Reach tabled{cfi.samples - early, cfi.rooted};
  std::cout << GetParam().name << ": root reach cfi " << tabled.percent() << "% of " << tabled.samples << " ("
            << early << " before their table), dwarf " << dwarf.percent() << "% of " << dwarf.samples << "\n";
  EXPECT_GE(tabled.percent(), dwarf.percent() - 2.0) << cfi_err;
}

INSTANTIATE_TEST_SUITE_P(DebianBinaries, CfiRootReach,
                         ::testing::Values(Workload{"xz", xz}, Workload{"gzip", gzip_}, Workload{"sort", sort_},
                                           Workload{"python3", python}, Workload{"perl", perl}),
                         [](const auto& info) { return std::string(info.param.name); });

// perf reads the recording: its report names the same top 20 rows as
// sonde's, and its script sees as many samples through libc's start as
// sonde's (the chains are ordinary PERF_SAMPLE_CALLCHAIN ones).
TEST(CfiRecord, PerfReportNamesTheSameTopRows) {
  TempDir dir;
  make_input(dir);
  auto r = run({sonde_bin(), "record", "-q", "--call-graph", "cfi", "-o", dir / "x.data", "--", "/usr/bin/xz", "-9",
                "-k", "-c", "-T1", dir / "input.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string opts = " --stdio -q -g none --sort sym --no-children 2>/dev/null | head -20";
  auto ours = sh(sonde::test::quoted(sonde_bin()) + " report -i " + sonde::test::quoted(dir / "x.data") + opts);
  auto perf = sh("perf report -i " + sonde::test::quoted(dir / "x.data") + opts);
  EXPECT_EQ(lines(ours.out).size(), 20u);
  EXPECT_EQ(ours.out, perf.out) << first_difference(ours.out, perf.out);
  std::string fields = " -F comm,pid,tid,period,event,ip,sym 2>/dev/null";
  auto our_script = sh(sonde::test::quoted(sonde_bin()) + " script -i " + sonde::test::quoted(dir / "x.data") + fields);
  auto perf_script = sh("perf script -i " + sonde::test::quoted(dir / "x.data") + fields);
  size_t rooted = count_lines_with(our_script.out, "__libc_start_call_main");
  EXPECT_GT(rooted, 500u);
  EXPECT_EQ(count_lines_with(perf_script.out, "__libc_start_call_main"), rooted);
}

TEST(CfiRecord, AttachesToARunningProcess) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("cfi_spin.c", dir / "spin", "-O2 -fomit-frame-pointer"));
  pid_t spin = fork();
  if (spin == 0) {
    std::string bin = dir / "spin", go = dir / "go";
    execl(bin.c_str(), bin.c_str(), go.c_str(), "150", static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_t rec = fork();
  if (rec == 0) {
    std::string bin = sonde_bin(), out = dir / "p.data", pid = std::to_string(spin);
    execl(bin.c_str(), bin.c_str(), "record", "-q", "--call-graph", "cfi", "-p", pid.c_str(), "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Go once the recorder unwinds the waiting process: a stack of its wait,
  // walked by CFI to the root, is in the file (the program is attached and
  // the process's tables are loaded).
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "p.data", "-F", "comm,pid,tid,period,event,ip,sym"});
    for (const auto& sample : parse_script(s.out))
      if (sample.has("wait_for_go") && reaches_root(sample)) return true;
    return false;
  }));
  std::ofstream(dir / "go") << "go";
  wait_status(spin);
  int st = wait_status(rec);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  auto script = run({sonde_bin(), "script", "-i", dir / "p.data", "-F", "comm,pid,tid,period,event,ip,sym"});
  size_t sorting = 0, whole = 0;
  for (const auto& s : parse_script(script.out)) {
    if (!s.has("sort_round") || !s.has("cmp_desc")) continue;
    ++sorting;
    whole += s.has("main") && reaches_root(s);
  }
  ASSERT_GT(sorting, 50u) << script.err;
  EXPECT_GE(whole * 100, sorting * 98) << whole << " of " << sorting;
}

// Samples taken in the vdso (clock_gettime) unwind through libc's wrapper
// to spin() and main. The vdso's own .eh_frame now gives its rows (the
// table itself: CfiTableStore.TheVdsoMappingGetsTheVdsosTable); the vdso
// also keeps rbp, so a frame-pointer step got most of these right before,
// all but the samples in a prologue or an epilogue. The first
// milliseconds, before the process's tables are loaded, walk by frame
// pointer too: the bound is a majority, not all.
TEST(CfiRecord, VdsoSamplesUnwindThroughTheVdsosOwnCfi) {
  TempDir dir;
  const std::string bin = dir / "vdso_spin", data = dir / "vdso.data";
  ASSERT_TRUE(compile_fixture("vdso_spin.c", bin, "-O2"));
  auto r = run({sonde_bin(), "record", "-q", "--call-graph", "cfi", "-o", data, "--", bin, "30000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = run({sonde_bin(), "script", "-i", data, "-F", "ip,sym,dso"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  size_t in_vdso = 0, to_main = 0;
  for (const auto& sample : split_samples(s.out)) {
    if (sample.substr(0, sample.find('\n')).find("([vdso])") == std::string::npos) continue;
    ++in_vdso;
    to_main += sample.find(" spin (") != std::string::npos && sample.find(" main (") != std::string::npos;
  }
  ASSERT_GE(in_vdso, 100u) << "the fixture's time is in the vdso";
  EXPECT_GT(to_main * 2, in_vdso) << to_main << " of " << in_vdso << " vdso samples reach spin and main";
}

// Samples in a signal handler unwind through the kernel's signal frame: at
// libc's trampoline ('S' FDE) the walker reads the interrupted rip, rsp and
// rbp from the ucontext on the stack, and goes on from the interrupted
// instruction (work()) to main. Before, the trampoline's rule was an
// unsupported expression and every such chain stopped there.
TEST(CfiRecord, SignalHandlerSamplesUnwindThroughTheSignalFrame) {
  TempDir dir;
  const std::string bin = dir / "signal_spin", data = dir / "signal.data";
  ASSERT_TRUE(compile_fixture("signal_spin.c", bin, "-O2"));
  auto r = run({sonde_bin(), "record", "-q", "--call-graph", "cfi", "-o", data, "--", bin});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = run({sonde_bin(), "script", "-i", data, "-F", "ip,sym,dso"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  size_t in_handler = 0, to_main = 0;
  for (const auto& sample : split_samples(s.out)) {
    const size_t handler = sample.find(" on_tick (");
    if (handler == std::string::npos) continue;
    ++in_handler;
    const size_t work = sample.find(" work (", handler);
    to_main += work != std::string::npos && sample.find(" main (", work) != std::string::npos;
  }
  ASSERT_GE(in_handler, 100u) << "the fixture's time is in its handler";
  EXPECT_GT(to_main * 2, in_handler) << to_main << " of " << in_handler << " handler samples reach work and main";
}

// Code whose CFI is only in .debug_frame (built -g without unwind tables,
// and without frame pointers): the table compiler takes those FDEs where
// .eh_frame has none, so leaf() unwinds to middle() and main. Before, that
// code had no row, the frame-pointer walk got nowhere, and none did.
TEST(CfiRecord, DebugFrameOnlyCodeUnwinds) {
  TempDir dir;
  const std::string bin = dir / "debug_frame_only", data = dir / "dfo.data";
  ASSERT_TRUE(compile_fixture("debug_frame_only.c", bin,
                              "-O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer"));
  auto r = run({sonde_bin(), "record", "-q", "--call-graph", "cfi", "-o", data, "--", bin, "300000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto s = run({sonde_bin(), "script", "-i", data, "-F", "ip,sym,dso"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  size_t in_leaf = 0, to_main = 0;
  for (const auto& sample : split_samples(s.out)) {
    if (sample.substr(0, sample.find('\n')).find(" leaf (") == std::string::npos) continue;
    ++in_leaf;
    to_main += sample.find(" middle (") != std::string::npos && sample.find(" main (") != std::string::npos;
  }
  ASSERT_GE(in_leaf, 100u) << "the fixture's time is in leaf()";
  EXPECT_GT(to_main * 2, in_leaf) << to_main << " of " << in_leaf << " leaf samples reach middle and main";
}

TEST(CfiRecord, BadModeIsAUsageError) {
  TempDir dir;
  auto r = run({sonde_bin(), "record", "--call-graph", "cfii", "-o", dir / "x.data", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unsupported --call-graph 'cfii' (fp, dwarf[,SIZE], cfi or lbr)"), std::string::npos) << r.err;
  struct stat st;
  EXPECT_NE(::stat((dir / "x.data").c_str(), &st), 0);
}

TEST(CfiRecord, WithoutBpfOneLineAndExitOne) {
  TempDir dir;
  auto r = run({"setpriv", "--bounding-set=-all", "--inh-caps=-all", sonde_bin(), "record", "-e", "cpu-clock:u",
                "--call-graph", "cfi", "-o", dir / "x.data", "--", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  EXPECT_NE(r.err.find("sonde: cfi: cannot load the BPF program"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sonde::test
