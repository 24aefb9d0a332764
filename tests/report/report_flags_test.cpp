// sonde report's perf flags against perf report --stdio on the same
// recordings, line for line: the two_comms fixture (two processes, call
// chains with branches; built -fno-plt: perf names a PLT stub after the
// symbol before it, sonde after the stub), recorded by sonde (pipe mode:
// perf computes no Children for a pipe, so --no-children there), the same
// converted to perf's file mode, and recorded by perf itself (file mode,
// with CPUs and the CPU topology).
#include <gtest/gtest.h>

#include <regex>

#include "report/report_compare.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

class ReportFlags : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string bin = *dir_ / "two_comms";
    ASSERT_TRUE(compile_fixture("two_comms.c", bin, "-fno-plt"));
    // A sample in a PLT stub of a library (rare) would be named
    // differently by perf, and one in the vdso is its extracted temporary
    // file under -v (/tmp/perf-vdso.so-XXXXXX): record again.
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = sh(sonde_bin() + " record -q -g -o " + pipe() + " -- " + bin + " 0.3");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      r = sh("perf record -q -g --sample-cpu -o " + perf_file() + " -- " + bin + " 0.3 2>&1");
      ASSERT_EQ(r.exit_code, 0) << r.out;
      if (!has_stub(pipe()) && !has_stub(perf_file())) break;
    }
    auto r = run({sonde_bin(), "convert", "-i", pipe(), "--to", "perf", "-o", file()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }

  static bool has_stub(const std::string& data) {
    auto script = run({sonde_bin(), "script", "-i", data}).out;
    return count_lines_with(script, "@plt") > 0 || count_lines_with(script, "[vdso]") > 0;
  }
  static std::string pipe() { return *dir_ / "pipe.data"; }
  static std::string file() { return *dir_ / "file.data"; }
  static std::string perf_file() { return *dir_ / "perf.data"; }

  // The same arguments to both (perf's own, plus `perf_extra`). With call
  // graphs, branches under 1% are cut (--percent-limit is their threshold
  // too, unless -g names one): perf orders equal branches of different
  // objects by the objects' addresses in its memory, which sonde can only
  // approximate, and equal branches are small ones.
  static void expect_as_perf(const std::string& data, std::string args, const std::string& perf_extra = "") {
    const bool graph = (args.find("-g ") != std::string::npos && args.find("-g none") == std::string::npos) ||
                       args.find("-G") != std::string::npos;
    if (graph && args.find("--percent-limit") == std::string::npos) args = "--percent-limit 1 " + args;
    auto r = compare_reports(data, args, args + " " + perf_extra);
    ASSERT_EQ(r.ours.exit_code, 0) << r.ours.err;
    ASSERT_EQ(r.perf.exit_code, 0);
    ASSERT_GT(lines(r.perf.out).size(), 8u) << r.perf.out;
    EXPECT_EQ(r.difference, "") << data << ": " << args;
  }
  static TempDir* dir_;
};
TempDir* ReportFlags::dir_ = nullptr;

const char* const kNoGraph = "-g none";  // perf shows call graphs by default; sonde with -g

}  // namespace

// -g's whole grammar: print type, threshold, print limit, order, key,
// branch, value, and perf's abbreviations of them.
TEST_F(ReportFlags, CallGraphGrammarAsPerf) {
  for (const char* spec : {"graph", "fractal", "flat", "folded", "graph,1.5", "fractal,2,callee", "flat,1,caller",
                           "folded,1,callee", "graph,1,caller,function,period", "graph,1,callee,function,count",
                           "fractal,2,caller,count", "graph,1,callee,2", "graph,1,callee,function,branch",
                           "g,1,calle,f,perc", "caller", "callee", "graph,5", "fractal,10,caller"}) {
    SCOPED_TRACE(spec);
    expect_as_perf(file(), std::string("--children -g ") + spec);
    expect_as_perf(file(), std::string("--no-children -g ") + spec);
    expect_as_perf(pipe(), std::string("--no-children -g ") + spec);
  }
}

// Sort keys address and srcline: each frame with its source line. Cut to
// the fixture's own frames (--max-stack, --percent-limit): perf names the
// compile unit (file.o:0) of static libc code sonde finds no line for.
TEST_F(ReportFlags, CallGraphAddressAndSrclineKeysAsPerf) {
  for (const char* spec : {"graph,1,callee,address", "folded,1,callee,srcline", "graph,1,callee,srcline"}) {
    SCOPED_TRACE(spec);
    expect_as_perf(file(), std::string("--no-children --max-stack 3 --percent-limit 1 -g ") + spec);
    expect_as_perf(file(), std::string("--children --max-stack 3 --percent-limit 1 -g ") + spec);
  }
}

// Bare -g prints perf's default order (what perf shows without -g: caller
// with Children, callee without); -G is perf's -G (caller order).
TEST_F(ReportFlags, DefaultOrderAndInvertedAsPerf) {
  for (const char* children : {"--children", "--no-children"}) {
    SCOPED_TRACE(children);
    auto r = compare_reports(file(), std::string("--percent-limit 1 ") + children + " -g",
                             std::string("--percent-limit 1 ") + children);
    EXPECT_EQ(r.difference, "");
    expect_as_perf(file(), std::string(children) + " -G");
  }
  auto pipe_default = compare_reports(pipe(), "--percent-limit 1 --no-children -g", "--percent-limit 1 --no-children");
  EXPECT_EQ(pipe_default.difference, "");
  // perf's own bare -g means graph,0.5,caller: sonde's explicit caller.
  auto r = compare_reports(file(), "--percent-limit 1 --no-children -g caller", "--percent-limit 1 --no-children -g");
  EXPECT_EQ(r.difference, "");
}

TEST_F(ReportFlags, FieldsAndSortKeysAsPerf) {
  for (const char* args : {"-F overhead,sym", "-F +period,sample", "-F sym,overhead", "--sort overhead,sym",
                           "--sort sym,sample", "--sort period,comm", "--sort sym,overhead", "--sort pid",
                           "--sort dso,sym -F overhead_sys,overhead_us,dso", "-n", "--sort comm,dso,sym -F sample,sym",
                           "--sort sym", "--sort dso"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--children ") + args, kNoGraph);
    expect_as_perf(pipe(), std::string("--no-children ") + args, kNoGraph);
  }
  // --sort sym with a call graph: perf leaves out the lone chain's first frame.
  expect_as_perf(file(), "--no-children --sort sym -g callee");
}

TEST_F(ReportFlags, CpuAndSocketAsPerf) {
  for (const char* args : {"--sort cpu", "--sort socket", "--sort cpu,socket,sym", "-F overhead,cpu,comm"}) {
    SCOPED_TRACE(args);
    expect_as_perf(perf_file(), std::string("--no-children ") + args, kNoGraph);
  }
  // sonde's core key: the core of each CPU from the same topology.
  auto r = run({sonde_bin(), "report", "--no-children", "-q", "--sort", "cpu,core", "-i", perf_file()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex row(R"(^\s+[0-9.]+%\s+(\d+)\s+(\d+)$)");
  size_t rows = 0;
  for (const auto& l : lines(r.out)) {
    std::smatch m;
    if (std::regex_match(l, m, row)) ++rows;
  }
  EXPECT_GE(rows, 1u) << r.out;
}

// -C: only the samples on these CPUs count (the percentages are of them).
// The CPUs are the ones the recording's samples ran on (perf refuses a CPU
// beyond the recording's count; sonde shows nothing).
TEST_F(ReportFlags, CpuListAsPerf) {
  for (const std::string& data : {perf_file(), file()}) {
    auto cpus = lines(sh("perf script -i " + data + " -F cpu 2>/dev/null | sort -u | tr -d '[] '").out);
    ASSERT_FALSE(cpus.empty());
    for (const std::string& list : {cpus[0], cpus.back(), std::string("0-1"), std::string("1,0")}) {
      SCOPED_TRACE(data + " -C " + list);
      expect_as_perf(data, "--no-children -C " + list, kNoGraph);
      expect_as_perf(data, "--children -g caller --cpu " + list);
    }
  }
}

TEST_F(ReportFlags, ParentAsPerf) {
  for (const char* args : {"--sort parent", "--sort parent,sym", "--sort parent --parent 'heavy|light'",
                           "--sort parent,comm -p '^child_loop$'"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--children ") + args, kNoGraph);
    expect_as_perf(file(), std::string("--no-children -g callee ") + args);
  }
}

TEST_F(ReportFlags, QuietVerboseAndThreadsAsPerf) {
  expect_as_perf(file(), "--children -q", kNoGraph);
  expect_as_perf(file(), "--no-children -q -g callee");
  expect_as_perf(pipe(), "--no-children -T", kNoGraph);
  // -v: objects by path and symbols with their address. perf adds where
  // it found the symbols as one letter (B: its build-id cache, ...); sonde
  // prints '.' there.
  auto r = compare_reports(file(), "--no-children -v", "--no-children -v -g none");
  ASSERT_EQ(r.ours.exit_code, 0) << r.ours.err;
  std::regex origin(R"((0x[0-9a-f]+ +)\S( \[[k.]\]))");
  std::string ours = std::regex_replace(without_notes(r.ours.out), origin, "$1?$2");
  std::string perf = std::regex_replace(without_tip(r.perf.out), origin, "$1?$2");
  EXPECT_EQ(first_difference(ours, perf), "");
  // The object column is as wide as the longest path with samples (ld.so's
  // when one lands there): any run of spaces before the address.
  EXPECT_TRUE(std::regex_search(ours, std::regex("/two_comms +0x"))) << ours;
}

// Filters hide rows: the percentages stay of the whole event, as perf's.
TEST_F(ReportFlags, FiltersAsPerf) {
  const std::string pid = lines(sh("perf script -F pid -i " + file() + " 2>/dev/null | sort -u").out).at(0);
  std::string id = pid.substr(pid.find_first_not_of(' '));
  id = id.substr(0, id.find(' '));
  for (std::string args : std::vector<std::string>{"--comms hot_child", "--comms two_comms,hot_child", "--comm hot_child", "--dsos two_comms",
                           "--symbol-filter work", "--symbol-filter loop", "--percent-limit 10",
                           "--pid " + id, "--tid " + id}) {
    SCOPED_TRACE(args);
    std::string perf_args = args;
    if (args.starts_with("--comm ")) perf_args.replace(0, 6, "--comms");
    auto r = compare_reports(file(), "--children " + args, "--children -g none " + perf_args);
    EXPECT_EQ(r.difference, "");
    const std::string limit = args.find("--percent-limit") == std::string::npos ? "--percent-limit 1 " : "";
    r = compare_reports(file(), limit + "--no-children -g callee " + args, limit + "--no-children -g callee " + perf_args);
    EXPECT_EQ(r.difference, "");
  }
}

// Times picked from each recording's own samples, not from one run's timing.
std::vector<std::string> some_times(const std::string& data) {
  auto times = lines(sh("perf script -F time -i " + data + " 2>/dev/null").out);
  std::vector<std::string> t;
  if (times.size() < 300) return t;
  for (size_t i : {size_t(20), times.size() / 3, times.size() / 2, 2 * times.size() / 3}) {
    std::string s = times[i].substr(times[i].find_first_not_of(' '));
    t.push_back(s.substr(0, s.find(':')));
  }
  return t;
}

TEST_F(ReportFlags, TimeRangesAsPerf) {
  for (const std::string& data : {file(), perf_file()}) {
    const std::vector<std::string> t = some_times(data);
    ASSERT_EQ(t.size(), 4u) << data;
    for (std::string spec : std::vector<std::string>{t[0] + "," + t[1], t[1] + ",", "," + t[0],
                                                    t[0] + "," + t[1] + " " + t[2] + "," + t[3], "10%/2",
                                                    "0%-10%,50%-60%", "25%"}) {
      SCOPED_TRACE(data + " --time " + spec);
      expect_as_perf(data, "--children --time '" + spec + "'", kNoGraph);
      expect_as_perf(data, "--no-children -g callee --time '" + spec + "'");
    }
  }
}

TEST_F(ReportFlags, IgnoreCalleesAsPerf) {
  for (const char* args : {"--ignore-callees work -g callee", "--ignore-callees 'heavy|light' -g caller",
                           "--ignore-callees _loop -g callee"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--no-children ") + args);
    expect_as_perf(file(), std::string("--children ") + args);
  }
}

TEST_F(ReportFlags, HeaderAndHeaderOnlyAsPerf) {
  for (const std::string& data : {pipe(), file(), perf_file()}) {
    SCOPED_TRACE(data);
    auto r = compare_reports(data, "--no-children --header", "--no-children --header -g none");
    EXPECT_EQ(r.difference, "");
    EXPECT_NE(r.ours.out.find("# cmdline : "), std::string::npos);
    auto ours = run({sonde_bin(), "report", "--header-only", "-i", data});
    auto perf = sh("perf report --header-only -i " + data + " 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_EQ(first_difference(ours.out, without_bpf_programs(perf.out)), "");
  }
}

TEST_F(ReportFlags, StatsAsPerf) {
  for (const std::string& data : {pipe(), file(), perf_file()}) {
    SCOPED_TRACE(data);
    auto ours = run({sonde_bin(), "report", "--stats", "-i", data});
    auto perf = sh("perf report --stats -i " + data + " 2>/dev/null");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_NE(perf.out.find("Aggregated stats:"), std::string::npos);
    EXPECT_EQ(first_difference(ours.out, perf.out), "");
  }
}

// -k: a vmlinux whose build-id is not the recorded kernel's is not used
// (a note says so); the report is the one without -k.
TEST_F(ReportFlags, VmlinuxOfAnotherBuildIsNotUsed) {
  auto plain = run({sonde_bin(), "report", "--no-children", "-i", file()});
  auto with_k = run({sonde_bin(), "report", "--no-children", "-k", *dir_ / "two_comms", "-i", file()});
  ASSERT_EQ(with_k.exit_code, 0) << with_k.err;
  EXPECT_EQ(first_difference(without_notes(with_k.out), without_notes(plain.out)), "");
}

// -t/--field-separator: the cells joined by the separator, values unpadded
// (" 12.34%"), every cell but the last padded to its width, the
// separator's first character replaced by '.' inside keys ("--sort pid"
// prints "1234:comm", ':' becomes '.'), no dotted rule.
TEST_F(ReportFlags, FieldSeparatorAsPerf) {
  for (const char* args : {"-t ';'", "-t '|' -n --show-total-period", "-t : --sort pid,sym", "-t o",
                           "-t ';;' --sort dso,sym", "-t , -F sym,overhead,sample"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--children ") + args, kNoGraph);
    expect_as_perf(file(), std::string("--no-children -g callee ") + args);
    expect_as_perf(pipe(), std::string("--no-children ") + args, kNoGraph);
  }
  auto r = run({sonde_bin(), "report", "--no-children", "-t", ";", "-i", file()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n# Overhead;Command  ;Shared Object"), std::string::npos) << r.out;  // hot_child is 9 wide
  EXPECT_EQ(r.out.find("# ........"), std::string::npos) << r.out;
}

// --showcpuutilization: sys and usr after the overhead columns (perf adds
// no guest columns in report); --show-total-period: Period after Samples.
TEST_F(ReportFlags, CpuUtilizationAndTotalPeriodAsPerf) {
  for (const char* args : {"--showcpuutilization", "--showcpuutilization -n --show-total-period",
                           "--show-total-period", "--showcpuutilization --sort sym", "--showcpuutilization -t ,"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--children ") + args, kNoGraph);
    expect_as_perf(perf_file(), std::string("--no-children -g callee ") + args);
  }
  auto r = run({sonde_bin(), "report", "--no-children", "--showcpuutilization", "-i", file()});
  EXPECT_NE(r.out.find("# Overhead       sys       usr  Command"), std::string::npos) << r.out;
}

// --symbols/-S: only rows whose samples were in these symbols; with one
// name perf says it above the table and drops the Symbol column. With
// --children a caller's row is shown or hidden by the sample that made it
// (perf's quirk, kept). A hexadecimal entry matches nothing in perf 6.1.
TEST_F(ReportFlags, SymbolsAsPerf) {
  for (const char* args : {"--symbols work", "--symbols=work,light", "-S heavy,parent_loop,child_loop",
                           "--symbols work,0x1000", "--symbols 0x1000", "-S light --sort sym"}) {
    SCOPED_TRACE(args);
    expect_as_perf(file(), std::string("--children ") + args, kNoGraph);
    expect_as_perf(file(), std::string("--no-children -g callee ") + args);
    expect_as_perf(pipe(), std::string("--no-children ") + args, kNoGraph);
  }
  auto one = run({sonde_bin(), "report", "--no-children", "-S", "work", "-i", file()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("# symbol: work\n"), std::string::npos) << one.out;
  auto twice = run({sonde_bin(), "report", "-S", "work,light,work", "-i", file()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.out, "");
  EXPECT_EQ(twice.err, "sonde: --symbols: 'work' is given twice\n");
}
