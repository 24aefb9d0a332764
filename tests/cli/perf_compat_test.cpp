// perf's everyday command line on sonde (issue 28): each flag or subcommand
// compared with perf 6.1 on the same recording where perf 6.1 has it, or
// checked against newer perf's documented output where it does not.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines(text))
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

class PerfCompat : public ::testing::Test {
 protected:
  TempDir dir_;
  // A recording of `sh -c 'ls; true'`: a parent and a forked child.
  std::string record_sh(const std::vector<std::string>& extra = {}) {
    std::string data = dir_ / "sh.data";
    std::vector<std::string> argv = {sonde_bin(), "record", "-q", "-N", "-o", data};
    argv.insert(argv.end(), extra.begin(), extra.end());
    for (const char* w : {"--", "sh", "-c", "ls / >/dev/null; true"}) argv.push_back(w);
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return data;
  }
};

TEST(PerfCompatCommands, VersionBuildOptionsUsesPerfsLayoutAndSaysThereIsNoPython) {
  auto ours = run({sonde_bin(), "version", "--build-options"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_TRUE(ours.out.starts_with("sonde version ")) << ours.out;
  EXPECT_NE(ours.out.find("             libpython: [ OFF ]  # HAVE_LIBPYTHON_SUPPORT\n"), std::string::npos);
  EXPECT_NE(ours.out.find("                  zstd: [ on  ]  # HAVE_ZSTD_SUPPORT\n"), std::string::npos);
  // perf 6.1's lines for the features both have are the same bytes.
  auto perf = sh("perf version --build-options");
  for (const char* line : {"                 dwarf: [ on  ]  # HAVE_DWARF_SUPPORT",
                           "                libelf: [ on  ]  # HAVE_LIBELF_SUPPORT",
                           "                libbfd: [ OFF ]  # HAVE_LIBBFD_SUPPORT"}) {
    EXPECT_NE(perf.out.find(line), std::string::npos) << line;
    EXPECT_NE(ours.out.find(line), std::string::npos) << line;
  }
  EXPECT_EQ(run({sonde_bin(), "version"}).out, lines(ours.out)[0] + "\n");
}

// `check feature` (perf 6.10+; perf 6.1 has none): the line of each named
// feature in --build-options' layout, exit 0 only when all are built in.
TEST(PerfCompatCommands, CheckFeatureSaysWhetherEveryNamedFeatureIsBuiltIn) {
  auto bpf = run({sonde_bin(), "check", "feature", "bpf"});
  EXPECT_EQ(bpf.exit_code, 0) << bpf.err;
  EXPECT_EQ(bpf.out, "                   bpf: [ on  ]  # HAVE_LIBBPF_SUPPORT\n");
  auto by_macro = run({sonde_bin(), "check", "feature", "have_libbpf_support,ZSTD"});
  EXPECT_EQ(by_macro.exit_code, 0) << by_macro.err;
  EXPECT_EQ(lines(by_macro.out).size(), 2u) << by_macro.out;
  auto some_off = run({sonde_bin(), "check", "feature", "-q", "bpf,libpython"});
  EXPECT_EQ(some_off.exit_code, 1);
  EXPECT_EQ(some_off.out + some_off.err, "") << "-q prints nothing";
  auto unknown = run({sonde_bin(), "check", "feature", "warp-drive"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(lines(unknown.err).size(), 1u) << unknown.err;
  EXPECT_NE(unknown.err.find("unknown feature 'warp-drive'"), std::string::npos) << unknown.err;
  auto missing = run({sonde_bin(), "check", "feature"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
}

TEST(PerfCompatCommands, KallsymsPrintsWhatPerfKallsymsPrints) {
  auto ours = run({sonde_bin(), "kallsyms", "schedule", "ErlingHaaland", "do_syscall_64"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf kallsyms schedule ErlingHaaland do_syscall_64 2>/dev/null");
  EXPECT_EQ(ours.out, perf.out);
  EXPECT_NE(ours.out.find("ErlingHaaland: not found\n"), std::string::npos);
  auto none = run({sonde_bin(), "kallsyms"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("symbol is required"), std::string::npos) << none.err;
}

TEST_F(PerfCompat, GlobalBuildidDirAndBuildidCacheVerboseAsPerf) {
  std::string bin = dir_ / "true";
  std::filesystem::copy_file("/bin/true", bin);
  std::string ours_dir = dir_ / "ours", perf_dir = dir_ / "perf";
  auto ours = run({sonde_bin(), "--buildid-dir", ours_dir, "buildid-cache", "-v", "-a", bin});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf --buildid-dir " + perf_dir + " buildid-cache -v -a " + bin + " 2>&1");
  ASSERT_EQ(perf.exit_code, 0) << perf.out;
  auto added = lines_starting(perf.out, "Adding ");
  ASSERT_EQ(added.size(), 1u) << perf.out;
  EXPECT_EQ(ours.err, added[0] + "\n");
  // The same build-id links in both roots (perf also writes a probes file beside the copy).
  auto list = [](const std::string& root) { return sh("cd " + root + " && find .build-id | sort").out; };
  EXPECT_NE(list(ours_dir).find(".build-id/"), std::string::npos) << list(ours_dir);
  EXPECT_EQ(list(ours_dir), list(perf_dir));
  auto bad = run({sonde_bin(), "--buildid-dir"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "sonde: --buildid-dir needs a directory\n");
}

TEST_F(PerfCompat, ReportShowInfoPrintsTheCpuTopologyAsPerf) {
  std::string data = record_sh();
  auto ours = run({sonde_bin(), "report", "--header-only", "-I", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf report --header-only -I -i " + data + " 2>/dev/null");
  for (const char* prefix : {"# sibling ", "# CPU "}) {
    auto theirs = lines_starting(perf.out, prefix);
    EXPECT_FALSE(theirs.empty()) << prefix;
    EXPECT_EQ(lines_starting(ours.out, prefix), theirs) << prefix;
  }
  auto plain = run({sonde_bin(), "report", "--header-only", "-i", data});
  EXPECT_NE(plain.out.find("# CPU_TOPOLOGY info available, use -I to display"), std::string::npos);
}

TEST_F(PerfCompat, ReportTaskIsPerfsTaskTree) {
  std::string data = record_sh();
  auto ours = run({sonde_bin(), "report", "--task", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf report --task -i " + data + " 2>/dev/null");
  EXPECT_EQ(ours.out, perf.out) << first_difference(ours.out, perf.out);
  EXPECT_NE(ours.out.find(" | ls\n"), std::string::npos) << ours.out;
  // From a pipe too.
  auto piped = sh(sonde_bin() + " report --task -i - < " + data);
  EXPECT_EQ(piped.out, ours.out);
}

TEST_F(PerfCompat, ListJsonToAFileIsValidJsonWithPerfsKeys) {
  std::string out = dir_ / "list.json";
  auto r = run({sonde_bin(), "list", "-j", "-o", out, "cs", "sched:sched_switch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto j = nlohmann::json::parse(slurp_file(out));
  ASSERT_EQ(j.size(), 2u) << j.dump();
  EXPECT_EQ(j[0]["EventName"], "context-switches");
  EXPECT_EQ(j[0]["EventAlias"], "cs");
  EXPECT_EQ(j[0]["EventType"], "Software event");
  EXPECT_EQ(j[1]["EventName"], "sched:sched_switch");
  EXPECT_EQ(j[1]["Topic"], "tracepoint");
  auto bad = run({sonde_bin(), "list", "-o", dir_ / "no/such/dir/x"});
  EXPECT_EQ(bad.exit_code, 1);
}

TEST_F(PerfCompat, InjectPassesTheRecordingThrough) {
  std::string data = record_sh({"-z"});
  std::string copy = dir_ / "copy.data";
  auto r = run({sonde_bin(), "inject", "-b", "-i", data, "-o", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp_file(copy), slurp_file(data));
  auto piped = sh(sonde_bin() + " inject -B < " + data + " | " + sonde_bin() + " report -i - --stdio");
  auto direct = run({sonde_bin(), "report", "-i", data, "--stdio"});
  EXPECT_EQ(piped.out, direct.out);
  // perf reads what inject wrote as it reads the recording (its closing tip is random).
  auto perf_rows = [](const std::string& f) {
    std::string out = sh("perf report -i " + f + " --stdio 2>/dev/null").out;
    return out.substr(0, out.find("# (Tip:"));
  };
  EXPECT_EQ(perf_rows(copy), perf_rows(data));
  auto bad = run({sonde_bin(), "inject", "-o", dir_ / "x"}, "not a recording at all");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "sonde: standard input is not a perf.data recording (no PERFILE2 magic)\n");
  auto jit = run({sonde_bin(), "inject", "--jit", "-i", data, "-o", dir_ / "j"});
  EXPECT_EQ(jit.exit_code, 2);
}

TEST_F(PerfCompat, RecordCyclesFallsBackToCpuClockWithPerfsWarning) {
  if (std::filesystem::exists("/sys/bus/event_source/devices/cpu")) GTEST_SKIP() << "this machine has a PMU";
  std::string data = dir_ / "c.data";
  auto r = run({sonde_bin(), "record", "-e", "cycles", "-o", data, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.starts_with(
      "sonde record: warning: The cycles event is not supported, trying to fall back to cpu-clock\n"))
      << r.err;
  // perf 6.1 names the event as it does after its own fallback.
  EXPECT_EQ(sh("perf evlist -i " + data + " 2>/dev/null").out, "cpu-clock\n");
  std::string perf_data = dir_ / "p.data";
  sh("perf record -q -e cycles -o " + perf_data + " true 2>/dev/null");
  EXPECT_EQ(sh("perf evlist -i " + perf_data + " 2>/dev/null").out, "cpu-clock\n");
}

TEST_F(PerfCompat, RecordFilterAppliesToThePrecedingTracepoint) {
  std::string data = dir_ / "f.data";
  // Only the exec of `true` passes a filter on its file name.
  auto r = run({sonde_bin(), "record", "-q", "-e", "sched:sched_process_exec", "--filter", "filename ~ \"*/true\"",
                "-o", data, "--", "sh", "-c", "ls >/dev/null; /bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto script = run({sonde_bin(), "script", "-i", data, "-F", "comm,event"});
  EXPECT_EQ(count_lines_with(script.out, "sched:sched_process_exec"), 1u) << script.out;
  EXPECT_NE(script.out.find("true"), std::string::npos) << script.out;
  auto before = run({sonde_bin(), "record", "--filter", "pid == 1", "-e", "sched:sched_process_exec", "-o", data, "true"});
  EXPECT_EQ(before.exit_code, 2);
  EXPECT_EQ(before.err, "sonde: --filter 'pid == 1' must follow a -e tracepoint\n");
  auto bad = run({sonde_bin(), "record", "-e", "sched:sched_process_exec", "--filter", "nosuchfield == 1", "-o",
                  dir_ / "g.data", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("cannot set filter 'nosuchfield == 1'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "g.data"));
}

TEST_F(PerfCompat, RecordTakesPerfsSynthPerThreadAndBuildidOptions) {
  std::string data = dir_ / "s.data";
  auto r = run({sonde_bin(), "record", "-q", "--per-thread", "--no-bpf-event", "--buildid-all", "--synth=task,mmap",
                "-o", data, "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto bad = run({sonde_bin(), "record", "--synth=tasks", "-o", dir_ / "b.data", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "sonde: invalid --synth 'tasks' (no, all, task, mmap, cgroup, comma-separated)\n");
  // --synth=no: no process read from /proc for -a (perf's --synth=no).
  auto all = run({sonde_bin(), "record", "-q", "-a", "--synth=no", "-o", data, "--", "true"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto stats = run({sonde_bin(), "report", "--stats", "-i", data});
  auto with = run({sonde_bin(), "record", "-q", "-a", "-o", dir_ / "w.data", "--", "true"});
  auto stats_with = run({sonde_bin(), "report", "--stats", "-i", dir_ / "w.data"});
  auto mmaps = [](const std::string& s) {
    for (const auto& l : lines(s))
      if (l.find("MMAP2 events:") != std::string::npos) return std::stoull(l.substr(l.find(':') + 1));
    return 0ull;
  };
  EXPECT_LT(mmaps(stats.out) * 4, mmaps(stats_with.out)) << stats.out << stats_with.out;
}

TEST(PerfCompatCommands, RecordHelpNamesPerfsCompressionOption) {
  auto r = run({sonde_bin(), "record", "-h"});
  EXPECT_NE(r.out.find("-z, --compression-level"), std::string::npos);
}

TEST(PerfCompatCommands, TestWorkloadsAndTheSymbolsTest) {
  auto w = run({sonde_bin(), "test", "-w", "noploop", "0"});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  auto bad = run({sonde_bin(), "test", "-w", "nosuch"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "sonde: no workload 'nosuch' (noploop, thloop, leafloop, sqrtloop)\n");
  auto syms = run({sonde_bin(), "test", "-vv", "-F", "Symbols"});
  ASSERT_EQ(syms.exit_code, 0) << syms.err;
  for (const char* name : {" test_loop\n", " noploop\n", " leaf\n"}) EXPECT_NE(syms.out.find(name), std::string::npos) << name;
  EXPECT_EQ(run({sonde_bin(), "test", "-F", "Symbols"}).out.find("test_loop"), std::string::npos);
}

TEST_F(PerfCompat, ThreadsOutputOverAFileKeepsItAsOld) {
  std::string out = dir_ / "t.data";
  std::ofstream(out) << "earlier";
  auto r = run({sonde_bin(), "record", "-q", "--threads", "-o", out, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_directory(out));
  EXPECT_EQ(slurp_file(out + ".old"), "earlier");
  std::string plain = dir_ / "p.data";
  std::ofstream(plain) << "before";
  ASSERT_EQ(run({sonde_bin(), "record", "-q", "-o", plain, "--", "true"}).exit_code, 0);
  EXPECT_EQ(slurp_file(plain + ".old"), "before");
}

}  // namespace

namespace {

// A fixture program recorded by perf 6.1 (which reports nothing with
// --hierarchy or diff over a pipe-mode stream: "has no samples"), read by
// both: hot_loop for a fraction of a second.
class PerfCompatProfiles : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string record_loop(const std::string& name) {
    if (!std::filesystem::exists(dir_ / "hot_loop")) {
      EXPECT_TRUE(compile_fixture("hot_loop.c", dir_ / "hot_loop"));
    }
    std::string data = dir_ / name;
    auto r = sh("perf record -q -e cpu-clock -o " + data + " -- " + dir_ / "hot_loop" + " 0.2 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return data;
  }
};

TEST_F(PerfCompatProfiles, ReportHierarchyIsPerfsHierarchy) {
  std::string data = record_loop("h.data");
  auto ours = run({sonde_bin(), "report", "--hierarchy", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf report --hierarchy --stdio -i " + data + " 2>/dev/null");
  // perf ends with a tip; every line before it is the same but the rule
  // under the column title, whose width perf takes from symbol widths it
  // does not print (sonde: the widest printed name).
  auto no_rule = [](const std::string& text) {
    std::string out;
    for (const auto& l : lines(text))
      if (!l.starts_with("# ..............  ")) out += l + "\n";
    return out;
  };
  std::string theirs = no_rule(perf.out.substr(0, perf.out.find("#\n# (Tip:")));
  EXPECT_EQ(no_rule(ours.out), theirs) << first_difference(no_rule(ours.out), theirs);
  EXPECT_NE(ours.out.find("        hot_loop"), std::string::npos) << ours.out;
}

TEST_F(PerfCompatProfiles, DiffOfThreeFilesHasPerfsColumns) {
  std::string a = record_loop("a.data"), b = record_loop("b.data"), c = record_loop("c.data");
  auto ours = run({sonde_bin(), "diff", a, b, c});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf diff " + a + " " + b + " " + c + " 2>/dev/null");
  // The header lines are perf's; the hot function is a row of both.
  for (const char* prefix : {"# Event ", "# Data files:", "#  [0] ", "#  [1] ", "#  [2] "})
    EXPECT_EQ(lines_starting(ours.out, prefix), lines_starting(perf.out, prefix)) << prefix;
  auto ours_cols = lines_starting(ours.out, "# Baseline/0  Delta Abs/1  Delta Abs/2  Shared Object");
  EXPECT_EQ(ours_cols.size(), 1u) << ours.out;
  EXPECT_EQ(lines_starting(perf.out, "# Baseline/0  Delta Abs/1  Delta Abs/2  Shared Object").size(), 1u);
  EXPECT_NE(ours.out.find("[.] hot"), std::string::npos) << ours.out;
  auto json = run({sonde_bin(), "diff", "--format", "json", a, b, c});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(json.err, "sonde: diff: --to and --format json compare two recordings\n");
}

}  // namespace

namespace {

class PerfCompatReading : public ::testing::Test {
 protected:
  TempDir dir_;
  std::string record_true() {
    std::string data = dir_ / "t.data";
    auto r = run({sonde_bin(), "record", "-q", "-N", "-o", data, "--", "sh", "-c", "ls / >/dev/null"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return data;
  }
};

// "... PERF_RECORD_X..." summary lines of a -D dump, sorted (perf report -D
// places FINISHED_ROUND by its own flushing order).
std::vector<std::string> record_lines(const std::string& dump) {
  std::vector<std::string> out;
  for (const auto& l : lines(dump))
    if (l.find(": PERF_RECORD_") != std::string::npos || l.find("]: PERF_RECORD_") != std::string::npos) out.push_back(l);
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(PerfCompatReading, ReportDumpRawTraceHasPerfsRecordsAndCounts) {
  std::string data = record_true();
  auto ours = run({sonde_bin(), "report", "-D", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf report -D -i " + data + " 2>/dev/null");
  EXPECT_TRUE(ours.out.starts_with("# To display the perf.data header info, please use --header/--header-only options.\n#\n"));
  auto ours_records = record_lines(ours.out);
  EXPECT_GT(ours_records.size(), 5u);
  EXPECT_EQ(ours_records, record_lines(perf.out));
  auto stats = [](const std::string& s) { return s.substr(s.find("\nAggregated stats:")); };
  EXPECT_EQ(stats(ours.out), stats(perf.out));
}

TEST_F(PerfCompatReading, StrictFailsOnACutRecordingAndSaysHowManyBytes) {
  std::string data = record_true();
  const std::string whole = slurp_file(data);
  std::string cut = dir_ / "cut.data";
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 5);
  auto lenient = run({sonde_bin(), "report", "-i", cut});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("ignored its last"), std::string::npos) << lenient.err;
  for (const char* cmd : {"report", "script"}) {
    auto strict = run({sonde_bin(), cmd, "--strict", "-i", cut});
    EXPECT_EQ(strict.exit_code, 1) << cmd;
    EXPECT_NE(strict.err.find("sonde: " + cut + ": the recording ends short: "), std::string::npos) << strict.err;
    EXPECT_NE(strict.err.find(" bytes lost (--strict)\n"), std::string::npos) << strict.err;
  }
  // perf's data_validation.sh cuts: 64 bytes, 256 bytes.
  for (size_t size : {64, 256}) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc) << whole.substr(0, size);
    EXPECT_EQ(run({sonde_bin(), "report", "--strict", "-i", cut}).exit_code, 1) << size;
  }
  EXPECT_EQ(run({sonde_bin(), "report", "--strict", "-i", data}).exit_code, 0);
}

TEST_F(PerfCompatReading, ShowInfoReadsAPipeOnce) {
  std::string data = record_true();
  auto piped = sh(sonde_bin() + " report --header-only -I -i - < " + data);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, run({sonde_bin(), "report", "--header-only", "-I", "-i", data}).out);
  EXPECT_NE(piped.out.find("# sibling threads : "), std::string::npos) << piped.out;
}

TEST_F(PerfCompatReading, APlainRecordingOverAThreadsDirectoryKeepsItAsOld) {
  std::string out = dir_ / "r.data";
  ASSERT_EQ(run({sonde_bin(), "record", "-q", "--threads", "-o", out, "--", "true"}).exit_code, 0);
  auto r = run({sonde_bin(), "record", "-q", "-o", out, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(out));
  EXPECT_TRUE(std::filesystem::exists(out + ".old/data"));
  // A directory that is not a recording's is left alone: an error, as before.
  std::filesystem::create_directory(dir_ / "other");
  auto other = run({sonde_bin(), "record", "-q", "-o", dir_ / "other", "--", "true"});
  EXPECT_EQ(other.exit_code, 1);
}

}  // namespace

namespace {

TEST_F(PerfCompatProfiles, EvlistIsPerfEvlist) {
  std::string data = record_loop("e.data");
  std::string ours_data = dir_ / "o.data";
  ASSERT_EQ(run({sonde_bin(), "record", "-q", "-N", "-e", "cpu-clock", "-e", "page-faults", "-o", ours_data, "--",
                 "true"}).exit_code, 0);
  for (const std::string& f : {data, ours_data})
    for (const char* opt : {"", "-v", "-F"}) {
      auto ours = sh(sonde_bin() + " evlist " + opt + " -i " + f);
      EXPECT_EQ(ours.exit_code, 0) << ours.err;
      EXPECT_EQ(ours.out, sh(std::string("perf evlist ") + opt + " -i " + f + " 2>/dev/null").out) << f << " " << opt;
    }
  auto bad = run({sonde_bin(), "evlist", "-i", dir_ / "none.data"});
  EXPECT_EQ(bad.exit_code, 1);
}

}  // namespace
