// Every reader takes a directory of streams (docs/format.md, "Directory
// recordings"): sonde's layout (data + data.N, each a whole pipe stream),
// made here by splitting a real one-stream recording of a two-process
// fixture by CPU, and perf 6.1's own `perf record --threads -o DIR`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/stream_split.h"
#include "support/test_support.h"

using namespace sonde::test;
namespace fs = std::filesystem;

namespace {

size_t non_empty_lines(const std::string& text) {
  size_t n = 0;
  for (const auto& l : lines(text)) n += !l.empty();
  return n;
}

// The sample lines of `perf report --stdio` / `sonde report`: "  12.34%  comm  dso  [.] sym".
std::map<std::string, double> report_rows(const std::string& text) {
  std::map<std::string, double> rows;
  std::regex re(R"(^\s+([0-9.]+)%\s+(\S+)\s+(\S+)\s+(\[[.k]\]\s+.+?)\s*$)");
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, re)) rows[std::string(m[2]) + " " + std::string(m[3]) + " " + std::string(m[4])] = std::stod(m[1]);
  }
  return rows;
}

// Every row of `theirs` of at least 1% is in `ours` within 0.1 points, and
// the other way round.
void expect_same_rows(const std::string& ours_text, const std::string& theirs_text) {
  auto ours = report_rows(ours_text), theirs = report_rows(theirs_text);
  ASSERT_FALSE(theirs.empty()) << theirs_text;
  for (const auto& [key, pct] : theirs) {
    if (pct < 1.0) continue;
    auto it = ours.find(key);
    ASSERT_NE(it, ours.end()) << key << " is missing from\n" << ours_text;
    EXPECT_NEAR(it->second, pct, 0.1) << key;
  }
  for (const auto& [key, pct] : ours)
    if (pct >= 1.0) {
      EXPECT_TRUE(theirs.count(key)) << key << " is not in\n" << theirs_text;
    }
}

// `convert -i DIR --to perf -o OUT`: perf's report of OUT has sonde's rows
// for DIR.
void expect_perf_reads_the_conversion(const std::string& dir, const std::string& out) {
  auto c = run({sonde_bin(), "convert", "-i", dir, "--to", "perf", "-o", out});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto perf = sh("perf report --stdio --no-children --sort comm,dso,sym -i " + out + " 2>/dev/null");
  auto ours = sh(sonde_bin() + " report --no-children --sort comm,dso,sym -i " + dir);
  expect_same_rows(ours.out, perf.out);
}

class SondeDirectory : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    const std::string bin = *tmp_ / "two_comms";
    ASSERT_TRUE(compile_fixture("two_comms.c", bin, "-O1 -fno-plt"));
    stream_ = *tmp_ / "one.data";
    auto r = run({sonde_bin(), "record", "-F", "2000", "-g", "-o", stream_, "--", bin, "0.6"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Records in turn: the merge has to interleave the files record by
    // record, whichever CPUs the processes ran on.
    dir_ = *tmp_ / "dir.data";
    fs::create_directory(dir_);
    counts_ = split_into_directory(stream_, dir_, 2, SplitBy::kTurn);
    by_cpu_ = *tmp_ / "by_cpu.data";
    fs::create_directory(by_cpu_);
    split_into_directory(stream_, by_cpu_, 2, SplitBy::kCpu);
  }
  static void TearDownTestSuite() { delete tmp_; }
  static TempDir* tmp_;
  static std::string stream_, dir_, by_cpu_;
  static std::vector<uint64_t> counts_;
};
TempDir* SondeDirectory::tmp_ = nullptr;
std::string SondeDirectory::stream_, SondeDirectory::dir_, SondeDirectory::by_cpu_;
std::vector<uint64_t> SondeDirectory::counts_;

TEST_F(SondeDirectory, EveryFileHoldsRecordsAndIsReadByPerfAlone) {
  ASSERT_EQ(counts_.size(), 3u);
  auto samples = [](const std::string& file) {
    EXPECT_EQ(sh("perf script -i " + file + " >/dev/null 2>&1").exit_code, 0) << file;
    return sh("perf script -G -F ip -i " + file + " 2>/dev/null | wc -l").out;
  };
  const std::string n0 = samples(dir_ + "/data.0"), n1 = samples(dir_ + "/data.1");
  auto whole = sh("perf script -G -F ip -i " + stream_ + " 2>/dev/null | wc -l");
  ASSERT_GT(std::stoul(whole.out), 100u);
  // Records in turn: each file has half the samples, give or take the
  // side-band records in between.
  EXPECT_GT(std::stoul(n0), std::stoul(whole.out) / 4) << n0;
  EXPECT_GT(std::stoul(n1), std::stoul(whole.out) / 4) << n1;
  EXPECT_EQ(std::stoul(n0) + std::stoul(n1), std::stoul(whole.out));
  // Split by CPU: each file holds its CPUs' samples only.
  for (int i = 0; i < 2; ++i) {
    auto cpus = sh("perf script -G -F cpu -i " + by_cpu_ + "/data." + std::to_string(i) +
                   " 2>/dev/null | awk '{print $1}' | sort -u | tr -d '\\n'");
    EXPECT_TRUE(cpus.out.empty() || cpus.out == (i == 0 ? "[000]" : "[001]")) << cpus.out;
  }
}

TEST_F(SondeDirectory, ReportEqualsTheOneStreamReport) {
  for (const std::string args : {"", " --no-children --sort pid,sym", " -g --stdio"}) {
    auto one = sh(sonde_bin() + " report -i " + stream_ + args);
    for (const std::string& d : {dir_, by_cpu_}) {
      auto dir = sh(sonde_bin() + " report -i " + d + args);
      ASSERT_EQ(dir.exit_code, 0) << dir.err;
      EXPECT_EQ(first_difference(dir.out, one.out), "") << d << args;
      EXPECT_NE(dir.out.find("[.] work"), std::string::npos) << dir.out;
    }
  }
}

TEST_F(SondeDirectory, ScriptEqualsTheOneStreamScriptInTimeOrder) {
  const std::string fields = "comm,pid,tid,cpu,time,event,ip,sym,dso";
  auto one = run({sonde_bin(), "script", "--ns", "-F", fields, "-i", stream_});
  auto dir = run({sonde_bin(), "script", "--ns", "-F", fields, "-i", dir_});
  ASSERT_EQ(dir.exit_code, 0) << dir.err;
  EXPECT_EQ(dir.err, "");
  EXPECT_EQ(dir.out, one.out) << first_difference(dir.out, one.out);
  auto with_events = run({sonde_bin(), "script", "--show-task-events", "--show-mmap-events", "-i", dir_});
  auto one_events = run({sonde_bin(), "script", "--show-task-events", "--show-mmap-events", "-i", stream_});
  EXPECT_EQ(with_events.out, one_events.out) << first_difference(with_events.out, one_events.out);

  // Times never go back, and every sample's process has its name.
  auto t = run({sonde_bin(), "script", "--ns", "-F", "comm,pid,time", "-i", dir_});
  std::regex re(R"(^\s*(\S+)\s+(\d+)\s+(\d+)\.(\d{9}):\s*$)");
  double last = 0;
  size_t samples = 0;
  std::map<std::string, std::set<std::string>> comms_of_pid;
  for (const auto& l : lines(t.out)) {
    std::smatch m;
    if (!std::regex_match(l, m, re)) continue;
    ++samples;
    const double time = std::stod(std::string(m[3]) + "." + std::string(m[4]));
    EXPECT_GE(time, last) << l;
    last = time;
    comms_of_pid[m[2]].insert(m[1]);
  }
  EXPECT_GT(samples, 100u) << t.out.substr(0, 500);
  std::set<std::string> comms;
  for (const auto& [pid, names] : comms_of_pid) {
    for (const auto& n : names) EXPECT_NE(n[0], ':') << "pid " << pid << " has no COMM";
    comms.insert(names.begin(), names.end());
  }
  EXPECT_TRUE(comms.count("two_comms")) << t.out.substr(0, 300);
  EXPECT_TRUE(comms.count("hot_child")) << t.out.substr(0, 300);
}

TEST_F(SondeDirectory, OtherReadersTakeTheDirectory) {
  for (const std::string cmd : {"buildid-list", "report --stats", "convert --to folded -o -", "script -G"}) {
    auto one = sh(sonde_bin() + " " + cmd + " -i " + stream_);
    auto dir = sh(sonde_bin() + " " + cmd + " -i " + dir_);
    EXPECT_EQ(dir.exit_code, 0) << cmd << ": " << dir.err;
    if (cmd == "report --stats") continue;  // the merge writes its own FINISHED_ROUNDs
    EXPECT_EQ(dir.out, one.out) << cmd << ": " << first_difference(dir.out, one.out);
  }
  auto diff = run({sonde_bin(), "diff", stream_, dir_});
  EXPECT_EQ(diff.exit_code, 0) << diff.err;
  std::regex row(R"(^\s+[0-9.]+%\s+[+-]([0-9.]+)%)");
  size_t rows = 0;
  for (const auto& l : lines(diff.out)) {
    std::smatch m;
    if (!std::regex_search(l, m, row)) continue;
    ++rows;
    EXPECT_EQ(m[1], "0.00") << l;
  }
  EXPECT_GE(rows, 1u) << diff.out;  // how many rows pass diff's threshold depends on the machine's load
}

TEST_F(SondeDirectory, ConvertToPerfIsReadByPerfWithTheSameNumbers) {
  const std::string out = *tmp_ / "converted.data";
  ASSERT_NO_FATAL_FAILURE(expect_perf_reads_the_conversion(dir_, out));
  auto perf_n = sh("perf script -G -F ip -i " + out + " 2>/dev/null | wc -l");
  auto ours_n = sh(sonde_bin() + " script -G -i " + dir_ + " | wc -l");
  EXPECT_EQ(perf_n.out, ours_n.out);
}

TEST_F(SondeDirectory, DumpRawPrintsEachFileInTurn) {
  auto r = run({sonde_bin(), "script", "-D", "-i", dir_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string name : {"/data [", "/data.0 [", "/data.1 ["})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_LT(r.out.find("/data ["), r.out.find("/data.0 ["));
  EXPECT_LT(r.out.find("/data.0 ["), r.out.find("/data.1 ["));
}

TEST_F(SondeDirectory, TruncatedStreamIsReadUpToItsLastCompleteRecordAndSaidOnce) {
  TempDir t;
  const std::string cut = t / "cut.data";
  fs::copy(dir_, cut);
  const std::string last = cut + "/data.1";
  fs::resize_file(last, fs::file_size(last) / 2 + 3);
  auto r = run({sonde_bin(), "script", "-G", "-i", cut});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("incomplete record; ignored its last"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines_with(r.err, "sonde"), 1u) << r.err;
  // Every complete sample of every file: as many as the files give alone.
  auto whole = run({sonde_bin(), "script", "-G", "-i", dir_});
  auto alone0 = run({sonde_bin(), "script", "-G", "-i", cut + "/data.0"});
  auto alone1 = run({sonde_bin(), "script", "-G", "-i", last});
  EXPECT_EQ(non_empty_lines(r.out), non_empty_lines(alone0.out) + non_empty_lines(alone1.out));
  EXPECT_LT(non_empty_lines(r.out), non_empty_lines(whole.out));
  EXPECT_GT(non_empty_lines(alone1.out), 0u);
  auto d = run({sonde_bin(), "script", "-D", "-i", cut});
  EXPECT_EQ(d.exit_code, 0);
  EXPECT_NE(d.err.find(last + " ends with an incomplete record; ignored its last"), std::string::npos) << d.err;
}

TEST_F(SondeDirectory, AnAttrThatDiffersAcrossFilesIsOneError) {
  TempDir t;
  const std::string bad = t / "bad.data";
  fs::copy(dir_, bad);
  // data.1's HEADER_ATTR (the first record after the 16-byte pipe header):
  // its sample_period/freq field (attr offset 16) changed.
  std::fstream f(bad + "/data.1", std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(16 + 8 + 16);
  const uint64_t other = 12345;
  f.write(reinterpret_cast<const char*>(&other), sizeof other);
  f.close();
  auto r = run({sonde_bin(), "report", "-i", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines_with(r.err, ""), 1u) << r.err;
  EXPECT_NE(r.err.find(bad + "/data.1: the attr of id"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("differs from the one an earlier file of the directory gave it"), std::string::npos) << r.err;
}

// perf 6.1's own directory: data (file mode, HEADER_DIR_FORMAT) + raw data.N.
class PerfThreadsDirectory : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    const std::string bin = *tmp_ / "two_comms";
    ASSERT_TRUE(compile_fixture("two_comms.c", bin, "-O1 -fno-plt"));
    dir_ = *tmp_ / "perf.data";
    auto r = sh("perf record -q --threads -F 2000 -o " + dir_ + " -- " + bin + " 0.6 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete tmp_; }
  static TempDir* tmp_;
  static std::string dir_;
};
TempDir* PerfThreadsDirectory::tmp_ = nullptr;
std::string PerfThreadsDirectory::dir_;

TEST_F(PerfThreadsDirectory, ReportEqualsPerfReport) {
  ASSERT_TRUE(fs::exists(dir_ + "/data.0")) << "perf did not write a directory";
  auto perf = sh("perf report --stdio --no-children --sort comm,dso,sym -i " + dir_ + " 2>/dev/null");
  auto ours = run({sonde_bin(), "report", "--no-children", "--sort", "comm,dso,sym", "-i", dir_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  expect_same_rows(ours.out, perf.out);
  auto summary = [](const std::string& text) {
    std::smatch m;
    std::regex re(R"(# Samples: (\S+)\s+of event '([^']+)')");
    return std::regex_search(text, m, re) ? std::string(m[1]) + " " + std::string(m[2]) : std::string("none");
  };
  EXPECT_EQ(summary(ours.out), summary(perf.out));
}

TEST_F(PerfThreadsDirectory, ScriptCountsPerfsSamples) {
  auto perf = sh("perf script -F ip -i " + dir_ + " 2>/dev/null | wc -l");
  auto ours = sh(sonde_bin() + " script -G -i " + dir_ + " | wc -l");
  EXPECT_EQ(ours.out, perf.out);
  EXPECT_GT(std::stoul(ours.out), 100u);  // fewer than 2 x 2000 x 0.6 on a loaded machine
}

TEST_F(PerfThreadsDirectory, ConvertToPerfIsReadByPerfWithTheSameNumbers) {
  const std::string out = *tmp_ / "converted.data";
  ASSERT_NO_FATAL_FAILURE(expect_perf_reads_the_conversion(dir_, out));
  auto perf_n = sh("perf script -F ip -i " + out + " 2>/dev/null | wc -l");
  auto dir_n = sh("perf script -F ip -i " + dir_ + " 2>/dev/null | wc -l");
  EXPECT_EQ(perf_n.out, dir_n.out);
}

TEST_F(PerfThreadsDirectory, MixedWithASondeStreamIsOneError) {
  TempDir t;
  const std::string mixed = t / "mixed";
  fs::create_directory(mixed);
  fs::copy_file(dir_ + "/data.0", mixed + "/data.0");
  // sonde's data: a pipe stream.
  auto rec = run({sonde_bin(), "record", "-o", mixed + "/data", "--", "true"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto r = run({sonde_bin(), "report", "-i", mixed});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sonde: " + mixed + " mixes layouts: data is a pipe-mode stream but " + mixed + "/data.0 is not\n");
  // perf's data with a sonde stream beside it.
  const std::string mixed2 = t / "mixed2";
  fs::create_directory(mixed2);
  fs::copy_file(dir_ + "/data", mixed2 + "/data");
  fs::copy_file(mixed + "/data", mixed2 + "/data.0");
  r = run({sonde_bin(), "script", "-i", mixed2});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sonde: " + mixed2 + " mixes layouts: data is perf --threads' header but " + mixed2 +
                       "/data.0 has a perf.data header\n");
}

TEST(DirectoryErrors, EmptyOrWithoutDataIsOneLineExit1) {
  TempDir t;
  const std::string empty = t / "empty";
  fs::create_directory(empty);
  for (const std::string cmd : {"report", "script", "buildid-list", "convert --to folded -o -"}) {
    auto r = sh(sonde_bin() + " " + cmd + " -i " + empty);
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_EQ(r.err, "sonde: " + empty + " is an empty directory: no recording to read\n") << cmd;
    EXPECT_EQ(r.out, "") << cmd;
  }
  const std::string no_data = t / "nodata";
  fs::create_directory(no_data);
  std::ofstream(no_data + "/data.0") << "x";
  for (const std::string cmd : {"report", "script -D", "sdt stats -i"}) {
    auto r = sh(sonde_bin() + " " + cmd + (cmd.ends_with("-i") ? " " : " -i ") + no_data + (cmd.starts_with("sdt") ? " '%a:b'" : ""));
    EXPECT_EQ(r.exit_code, 1) << cmd << r.err;
    EXPECT_EQ(r.err, "sonde: " + no_data + " is a directory without a data file: not a recording directory\n") << cmd;
  }
}

}  // namespace
