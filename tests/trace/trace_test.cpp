// sonde trace against the real kernel: a fixture makes known system calls
// (tests/fixtures/trace_calls.c) and each must be shown with its arguments,
// return value and errno name; -s counts them exactly; a recording replays
// to the same lines; perf trace agrees on the calls and their counts.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "support/test_support.h"

namespace sonde::test {
namespace {

class Trace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("trace_calls.c", bin(), "-O1 -static"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string bin() { return *dir_ / "trace_calls"; }
  static TempDir* dir_;
};
TempDir* Trace::dir_ = nullptr;

// The lines of one call, e.g. every "write(" line.
std::vector<std::string> calls(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& l : lines(text))
    if (l.find(" " + name + "(") != std::string::npos) out.push_back(l);
  return out;
}

// "name -> (calls, errors)" from a -s summary table.
std::map<std::string, std::pair<uint64_t, uint64_t>> summary_counts(const std::string& text) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  std::regex row(R"(^   (\w+) +(\d+) +(\d+) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%$)");
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, row)) out[m[1]] = {std::stoull(m[2]), std::stoull(m[3])};
  }
  return out;
}

TEST_F(Trace, EachCallWithItsArgumentsReturnAndErrno) {
  auto out = *dir_ / "lines.txt";
  auto r = run({sonde_bin(), "trace", "-o", out, "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = run({"cat", out}).out;
  auto opens = calls(text, "openat");
  ASSERT_EQ(opens.size(), 2u) << text;
  // The path read at entry by BPF; perf leaves out arguments that are 0: O_RDONLY alone is not shown.
  EXPECT_NE(opens[0].find("openat(dfd: CWD, filename: \"/nonexistent/sonde-trace-fixture\") "), std::string::npos)
      << opens[0];
  EXPECT_NE(opens[0].find("= -1 ENOENT (No such file or directory)"), std::string::npos) << opens[0];
  EXPECT_NE(opens[1].find("openat(dfd: CWD, filename: \"/dev/null\", flags: CLOEXEC|WRONLY) "), std::string::npos)
      << opens[1];
  std::smatch fd;
  ASSERT_TRUE(std::regex_search(opens[1], fd, std::regex(R"(= (\d+)$)"))) << opens[1];
  auto writes = calls(text, "write");
  ASSERT_EQ(writes.size(), 5u) << text;
  for (int k = 1; k <= 5; ++k) {
    const auto& w = writes[k - 1];
    // The descriptor with its file, learned from the open's path (perf's `fd: 3</dev/null>`).
    EXPECT_NE(w.find("write(fd: " + fd[1].str() + "</dev/null>, buf: 0x"), std::string::npos) << w;
    EXPECT_NE(w.find("count: " + std::to_string(10 * k) + ") "), std::string::npos) << w;
    EXPECT_TRUE(w.ends_with("= " + std::to_string(10 * k))) << w;
  }
  auto sleeps = calls(text, "nanosleep");
  ASSERT_EQ(sleeps.size(), 1u) << text;
  EXPECT_NE(sleeps[0].find("nanosleep(rqtp: 0x"), std::string::npos) << sleeps[0];
  EXPECT_TRUE(sleeps[0].ends_with("= 0")) << sleeps[0];
  auto kills = calls(text, "kill");
  ASSERT_EQ(kills.size(), 1u) << text;
  EXPECT_NE(kills[0].find("kill(pid: 1073741823, sig: USR1)"), std::string::npos) << kills[0];
  EXPECT_TRUE(kills[0].ends_with("= -1 ESRCH (No such process)")) << kills[0];
  // perf's layout: "   T.TTT ( D.DDD ms): comm/tid name(args)   = ret", `=` 70 columns after the name.
  std::regex layout(R"(^ *[0-9]+\.[0-9]{3} \( *[0-9]+\.[0-9]{3} ms\): trace_calls/[0-9]+ close\(fd: [0-9]+</dev/null>\) +\= 0$)");
  auto closes = calls(text, "close");
  ASSERT_EQ(closes.size(), 1u) << text;
  EXPECT_TRUE(std::regex_match(closes[0], layout)) << closes[0];
  EXPECT_EQ(closes[0].find('=') - closes[0].find("close("), 70u) << closes[0];
  auto exits = calls(text, "exit_group");
  ASSERT_EQ(exits.size(), 1u) << text;
  EXPECT_TRUE(exits[0].ends_with(" = ?")) << exits[0];
}

TEST_F(Trace, SummaryCountsAreExact) {
  auto r = run({sonde_bin(), "trace", "-s", "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto counts = summary_counts(r.err);
  EXPECT_EQ(counts["openat"], std::make_pair(uint64_t{2}, uint64_t{1})) << r.err;
  EXPECT_EQ(counts["write"], std::make_pair(uint64_t{5}, uint64_t{0})) << r.err;
  EXPECT_EQ(counts["nanosleep"], std::make_pair(uint64_t{1}, uint64_t{0})) << r.err;
  EXPECT_EQ(counts["kill"], std::make_pair(uint64_t{1}, uint64_t{1})) << r.err;
  EXPECT_EQ(counts["close"], std::make_pair(uint64_t{1}, uint64_t{0})) << r.err;
  EXPECT_NE(r.err.find(" Summary of events:"), std::string::npos) << r.err;
  EXPECT_EQ(calls(r.err, "write").size(), 0u) << "-s prints no lines";
}

// One thread's part of a -s summary: from its " comm (tid), N events"
// header to the next thread's.
std::string thread_part(const std::string& text, const std::string& comm) {
  size_t at = text.find("\n " + comm + " (");
  if (at == std::string::npos) return "";
  size_t next = text.find("\n\n\n ", at);
  return text.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

// The fixture's calls, as SummaryCountsAreExact expects them. System-wide
// (`pre_exec`), the forked command's calls before its exec (sonde's own
// code: closing descriptors, waiting for the go) are counted too, as perf
// -a counts them: close is then at least the fixture's one.
void expect_fixture_counts(const std::string& text, bool pre_exec = false) {
  auto counts = summary_counts(text);
  EXPECT_EQ(counts["openat"], std::make_pair(uint64_t{2}, uint64_t{1})) << text;
  EXPECT_EQ(counts["write"], std::make_pair(uint64_t{5}, uint64_t{0})) << text;
  EXPECT_EQ(counts["nanosleep"], std::make_pair(uint64_t{1}, uint64_t{0})) << text;
  EXPECT_EQ(counts["kill"], std::make_pair(uint64_t{1}, uint64_t{1})) << text;
  if (pre_exec) {
    EXPECT_GE(counts["close"].first, 1u) << text;
    EXPECT_EQ(counts["close"].second, 0u) << text;
  } else {
    EXPECT_EQ(counts["close"], std::make_pair(uint64_t{1}, uint64_t{0})) << text;
  }
}

// The counts kept in BPF maps (--bpf-summary) are those of the streamed
// events, call for call, and the thread is named as perf names it.
TEST_F(Trace, BpfSummaryCountsAreThoseOfTheStreamedSummary) {
  auto bpf = run({sonde_bin(), "trace", "-s", "--bpf-summary", "--", bin()});
  ASSERT_EQ(bpf.exit_code, 0) << bpf.err;
  auto streamed = run({sonde_bin(), "trace", "-s", "--no-bpf-summary", "--", bin()});
  ASSERT_EQ(streamed.exit_code, 0) << streamed.err;
  expect_fixture_counts(bpf.err);
  EXPECT_EQ(summary_counts(bpf.err), summary_counts(streamed.err)) << "bpf:\n" << bpf.err << "\nstreamed:\n" << streamed.err;
  std::regex header(R"(\n trace_calls \((\d+)\), (\d+) events, 100\.0%\n)");
  std::smatch b, s;
  ASSERT_TRUE(std::regex_search(bpf.err, b, header)) << bpf.err;
  ASSERT_TRUE(std::regex_search(streamed.err, s, header)) << streamed.err;
  EXPECT_EQ(b[2], s[2]) << "an entry and an exit per call";
  // The 2 ms nanosleep's minimum is at least 2 ms (the kernel's promise).
  std::smatch sleep;
  ASSERT_TRUE(std::regex_search(bpf.err, sleep, std::regex(R"(\n   nanosleep +1 +0 +[0-9.]+ +([0-9.]+) )"))) << bpf.err;
  EXPECT_GE(std::stod(sleep[1]), 2.0) << bpf.err;
}

// -a -s counts in BPF by default: every process's calls, the fixture's own
// table among them, exact.
TEST_F(Trace, SystemWideSummaryCountsTheWorkloadsCallsInBpf) {
  auto r = run({sonde_bin(), "trace", "-a", "-s", "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string mine = thread_part(r.err, "trace_calls");
  ASSERT_FALSE(mine.empty()) << r.err;
  expect_fixture_counts(mine, true);
  auto streamed = run({sonde_bin(), "trace", "-a", "-s", "--no-bpf-summary", "--", bin()});
  ASSERT_EQ(streamed.exit_code, 0) << streamed.err;
  expect_fixture_counts(thread_part(streamed.err, "trace_calls"), true);
}

// -S --bpf-summary: the lines streamed, the summary counted in BPF.
TEST_F(Trace, LinesWithTheSummaryCountedInBpf) {
  auto r = run({sonde_bin(), "trace", "-S", "--bpf-summary", "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(calls(r.err, "write").size(), 5u) << r.err;
  size_t at = r.err.find(" Summary of events:");
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" Summary of events:", at + 1), std::string::npos) << "one summary: " << r.err;
  expect_fixture_counts(r.err.substr(at));
}

// Where cgroup2 is mounted (mountinfo's field 5 of the cgroup2 line).
std::string cgroup2_mount() {
  std::ifstream in("/proc/self/mountinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string f[5];
    for (auto& x : f) fields >> x;
    return f[4];
  }
  return "";
}

// A cgroup made for one test, removed when it ends (its processes gone).
struct ScratchCgroup {
  std::string path;
  explicit ScratchCgroup(const std::string& mount)
      : path(mount + "/sonde-trace-test-" + std::to_string(::getpid())) {
    ::mkdir(path.c_str(), 0755);
  }
  ~ScratchCgroup() { ::rmdir(path.c_str()); }
};

// --summary-mode=cgroup: the command moves itself into a cgroup of its own
// before it execs the fixture; that cgroup's table holds the fixture's
// calls, named by its path as perf names it.
TEST_F(Trace, CgroupSummaryNamesTheCommandsCgroup) {
  const std::string mount = cgroup2_mount();
  ASSERT_FALSE(mount.empty()) << "no cgroup2 mount in /proc/self/mountinfo";
  ScratchCgroup cg(mount);
  struct stat st{};
  ASSERT_EQ(::stat(cg.path.c_str(), &st), 0) << cg.path;
  const std::string name = cg.path.substr(mount.size());
  auto r = run({sonde_bin(), "trace", "-s", "--summary-mode=cgroup", "--", "sh", "-c",
                "echo $$ > " + cg.path + "/cgroup.procs && exec " + bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t at = r.err.find("\n cgroup " + name + ", ");
  ASSERT_NE(at, std::string::npos) << name << "\n" << r.err;
  std::string mine = r.err.substr(at, r.err.find("\n\n\n ", at) - at);
  auto counts = summary_counts(mine);
  EXPECT_EQ(counts["openat"], std::make_pair(uint64_t{2}, uint64_t{1})) << mine;
  EXPECT_EQ(counts["kill"], std::make_pair(uint64_t{1}, uint64_t{1})) << mine;
  EXPECT_EQ(counts["nanosleep"], std::make_pair(uint64_t{1}, uint64_t{0})) << mine;
  EXPECT_GE(counts["write"].first, 5u) << "the fixture's 5, and the shell's echo once it moved: " << mine;
  auto streamed = run({sonde_bin(), "trace", "-s", "--summary-mode=cgroup", "--no-bpf-summary", "--", "true"});
  EXPECT_EQ(streamed.exit_code, 2) << streamed.err;
  EXPECT_NE(streamed.err.find("--summary-mode=cgroup is counted in BPF"), std::string::npos) << streamed.err;
}

// --summary-mode=total: one table for every thread, in both ways of counting.
TEST_F(Trace, TotalSummaryIsOneTable) {
  for (const char* how : {"--bpf-summary", "--no-bpf-summary"}) {
    auto r = run({sonde_bin(), "trace", "-s", how, "--summary-mode=total", "--", bin()});
    ASSERT_EQ(r.exit_code, 0) << how << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\n Summary of events:\n\n total, \d+ events\n\n   syscall )")))
        << how << r.err;
    EXPECT_EQ(r.err.find("trace_calls ("), std::string::npos) << how << r.err;
    expect_fixture_counts(r.err);
  }
}

TEST_F(Trace, FiltersSelectCallsFailuresAndDuration) {
  auto r = run({sonde_bin(), "trace", "-e", "write,kill", "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(calls(r.err, "write").size(), 5u) << r.err;
  EXPECT_EQ(calls(r.err, "kill").size(), 1u) << r.err;
  EXPECT_EQ(calls(r.err, "openat").size(), 0u) << r.err;
  auto f = run({sonde_bin(), "trace", "--failure", "--", bin()});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(calls(f.err, "openat").size(), 1u) << f.err;
  EXPECT_EQ(calls(f.err, "write").size(), 0u) << f.err;
  EXPECT_EQ(calls(f.err, "kill").size(), 1u) << f.err;
  // The 2 ms nanosleep lasts at least 2 ms (the kernel's promise, not a timing guess).
  auto d = run({sonde_bin(), "trace", "--duration", "1.9", "--", bin()});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(calls(d.err, "nanosleep").size(), 1u) << d.err;
  auto m = run({sonde_bin(), "trace", "--max-events", "3", "-e", "write", "--", bin()});
  EXPECT_EQ(calls(m.err, "write").size(), 3u) << m.err;
}

TEST_F(Trace, RecordThenReplayPrintsTheSameLines) {
  auto data = *dir_ / "trace.data";
  auto r = run({sonde_bin(), "trace", "record", "-o", data, "--", bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto a = run({sonde_bin(), "trace", "-i", data});
  auto b = run({sonde_bin(), "trace", "-i", data, "-S"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(calls(a.err, "write").size(), 5u) << a.err;
  EXPECT_EQ(b.err.substr(0, a.err.size()), a.err);
  // The paths read at entry are in the recording: the replay shows them as a live trace does.
  auto opens = calls(a.err, "openat");
  ASSERT_EQ(opens.size(), 2u) << a.err;
  EXPECT_NE(opens[0].find("filename: \"/nonexistent/sonde-trace-fixture\")"), std::string::npos) << opens[0];
  EXPECT_NE(opens[1].find("filename: \"/dev/null\", flags: CLOEXEC|WRONLY)"), std::string::npos) << opens[1];
  auto script = run({"perf", "script", "-i", data});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_NE(script.out.find("sonde:syscall-string"), std::string::npos) << "perf script reads the string samples";
  // perf trace reads sonde's recording to the same lines.
  auto p = run({"perf", "trace", "-i", data});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  // perf -i does not read the recorded paths: it shows `fd: 4` where sonde,
  // which learned the descriptor's file from the open's path, shows `fd: 4</dev/null>`.
  auto without_paths = [](std::vector<std::string> lines) {
    for (auto& l : lines) {
      std::string bare = std::regex_replace(l, std::regex("(fd: [0-9]+)</dev/null>"), "$1");
      l = std::regex_replace(bare, std::regex(R"(\) +=)"), ") =");  // the `=` column moves with the text
    }
    return lines;
  };
  for (const char* name : {"write", "kill", "nanosleep", "close"})
    EXPECT_EQ(without_paths(calls(a.err, name)), without_paths(calls(p.err, name)))
        << name << "\nsonde:\n" << a.err << "\nperf:\n" << p.err;
  auto ps = run({"perf", "trace", "-s", "-i", data});
  auto ss = run({sonde_bin(), "trace", "-s", "-i", data});
  EXPECT_EQ(summary_counts(ss.err), summary_counts(ps.err)) << "sonde:\n" << ss.err << "\nperf:\n" << ps.err;
}

TEST_F(Trace, PerfTraceAgreesOnCallsAndCounts) {
  auto perf = run({"perf", "trace", "-s", "--", bin()});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  auto ours = run({sonde_bin(), "trace", "-s", "--", bin()});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(summary_counts(ours.err), summary_counts(perf.err)) << "sonde:\n" << ours.err << "\nperf:\n" << perf.err;
}

// perf trace shows a descriptor's file when it can read it from /proc in
// time (a short-lived process may be gone first); wherever it does, sonde
// shows the same file for the same call, and sonde knows the fixture's
// /dev/null from its open call whatever the timing.
TEST_F(Trace, DescriptorsShowTheFilesLivePerfTraceShows) {
  auto perf = run({"perf", "trace", "-e", "openat,write,close", "--", bin()});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  auto ours = run({sonde_bin(), "trace", "-e", "openat,write,close", "--", bin()});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  std::regex fd_arg(R"(\((fd: [0-9]+<[^>]*>))");
  for (const char* name : {"write", "close"}) {
    auto p = calls(perf.err, name), s = calls(ours.err, name);
    ASSERT_EQ(p.size(), s.size()) << name << "\nperf:\n" << perf.err << "\nsonde:\n" << ours.err;
    for (size_t i = 0; i < s.size(); ++i) {
      EXPECT_NE(s[i].find("</dev/null>"), std::string::npos) << s[i];
      std::smatch m;
      if (std::regex_search(p[i], m, fd_arg)) {
        EXPECT_NE(s[i].find(m[1].str()), std::string::npos) << p[i] << "\n" << s[i];
      }
    }
  }
}

// The lines under a call's line (perf trace's chain: 39 columns in, then
// "SYMBOL (DSO)"), for the first call named `name`.
std::vector<std::string> chain_under(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : lines(text)) {
    if (l.find(" " + name + "(") != std::string::npos && out.empty()) {
      in = true;
      continue;
    }
    if (!in) continue;
    if (!l.starts_with(std::string(39, ' '))) break;
    out.push_back(l);
  }
  return out;
}

// --call-graph fp and dwarf: the chain under the fixture's write is perf
// trace's, line for line (inlined frames and the names DWARF gives them
// included), and reaches the fixture's three functions in order.
TEST_F(Trace, CallGraphLinesAreThoseOfPerfTrace) {
  auto chain_bin = *dir_ / "trace_chain";
  ASSERT_TRUE(compile_fixture("trace_chain.c", chain_bin, "-O1 -g -fno-omit-frame-pointer"));
  for (const char* mode : {"fp", "dwarf"}) {
    auto perf = run({"perf", "trace", "--call-graph", mode, "-e", "write", "--", chain_bin});
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    auto ours = run({sonde_bin(), "trace", "--call-graph", mode, "-e", "write", "--", chain_bin});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    auto p = chain_under(perf.err, "write"), s = chain_under(ours.err, "write");
    EXPECT_EQ(s, p) << mode << "\nsonde:\n" << ours.err << "\nperf:\n" << perf.err;
    std::string joined;
    for (const auto& l : s) joined += l + "\n";
    auto at = [&](const char* fn) { return joined.find(std::string(39, ' ') + fn + " ("); };
    EXPECT_LT(at("inner"), at("outer")) << joined;
    if (std::string(mode) == "dwarf") {
      EXPECT_LT(at("leaf_write"), at("inner")) << joined;
      EXPECT_NE(at("main"), std::string::npos) << joined;
    }
  }
  auto few = run({sonde_bin(), "trace", "--call-graph", "dwarf", "--max-stack", "2", "-e", "write", "--", chain_bin});
  ASSERT_EQ(few.exit_code, 0) << few.err;
  EXPECT_EQ(chain_under(few.err, "write").size(), 2u) << few.err;
}

// perf trace record --call-graph dwarf keeps the kernel's part of each chain
// too; replayed, sonde prints the same chain lines as perf trace -i. perf
// unwinds the copied user stacks only when --call-graph dwarf is repeated
// at replay; sonde always does.
TEST_F(Trace, ReplayedChainsOfPerfsRecordingAreThoseOfPerfTrace) {
  auto chain_bin = *dir_ / "trace_chain_replay";
  ASSERT_TRUE(compile_fixture("trace_chain.c", chain_bin, "-O1 -g -fno-omit-frame-pointer"));
  auto data = *dir_ / "perf-chains.data";
  auto rec = run({"perf", "trace", "record", "--call-graph", "dwarf", "-o", data, "--", chain_bin});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto perf = run({"perf", "trace", "-i", data, "--call-graph", "dwarf"});
  auto ours = run({sonde_bin(), "trace", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto p = chain_under(perf.err, "write"), s = chain_under(ours.err, "write");
  ASSERT_FALSE(p.empty()) << perf.err;
  EXPECT_EQ(s, p) << "sonde:\n" << ours.err << "\nperf:\n" << perf.err;
}

TEST_F(Trace, CallGraphBadInputIsOneLineAndExitTwo) {
  for (auto [arg, message] : {std::pair{"lbr", "--call-graph 'lbr' is not supported here"},
                              std::pair{"cfi", "--call-graph 'cfi' is not supported here"},
                              std::pair{"dwarf,7", "the stack size must be a multiple of 8"},
                              std::pair{"frames", "unsupported --call-graph 'frames'"}}) {
    auto r = run({sonde_bin(), "trace", "--call-graph", arg, "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << arg << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = run({sonde_bin(), "trace", "--max-stack", "0", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("invalid --max-stack '0'"), std::string::npos) << r.err;
}

TEST_F(Trace, BadInputIsOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"-e", "opnat", "--", "true"}, "unknown syscall 'opnat' (nearest: openat"},
      {{"--duration", "soon", "--", "true"}, "invalid --duration 'soon'"},
      {{"--max-events", "0", "--", "true"}, "invalid --max-events '0'"},
      {{}, "nothing to trace"},
      {{"-p", "abc"}, "invalid -p 'abc'"},
      {{"-p", "1", "-a"}, "-p PID takes no command and no -a"},
      {{"--bpf-summary", "--", "true"}, "--bpf-summary counts a live trace's calls in BPF: it needs -s or -S, and no -i"},
      {{"-s", "--bpf-summary", "-i", "x.data"}, "--bpf-summary counts a live trace's calls in BPF: it needs -s or -S, and no -i"},
      {{"-s", "--bpf-summary", "--no-bpf-summary", "--", "true"}, "--bpf-summary and --no-bpf-summary exclude each other"},
      {{"-s", "--summary-mode", "pid", "--", "true"}, "invalid --summary-mode 'pid': expected thread, total or cgroup"},
      {{"--summary-mode", "total", "--", "true"}, "--summary-mode needs -s or -S"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv{sonde_bin(), "trace"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 2) << c.message << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  }
  auto missing = run({sonde_bin(), "trace", "-p", "1073741823"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
}

}  // namespace
}  // namespace sonde::test
