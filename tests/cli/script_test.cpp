// sonde script / buildid-list against recordings made by perf 6.1 itself,
// so the reading side is checked independently of sonde's recorder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

// A pipe-mode recording of the demo workload made by perf, shared by tests.
class PerfPipeRecording : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    path_ = *dir_ / "perf.pipe";
    auto r = sh("perf record -q -g --buildid-mmap -o - -- " + demo_bin() + " 0.3 2>/dev/null > " + path_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
  static std::string path_;
};
TempDir* PerfPipeRecording::dir_ = nullptr;
std::string PerfPipeRecording::path_;

size_t sample_headers(const std::string& script_out) {
  // A sample header line ends with "<event>:" plus optional fields; frames start with a tab.
  size_t n = 0;
  for (const auto& l : lines(script_out))
    if (!l.empty() && l[0] != '\t' && l.find("cpu-clock") != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST_F(PerfPipeRecording, ScriptShowsEverySampleThatPerfShows) {
  auto ours = run({sonde_bin(), "script", "--no-symbols", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perfs = sh("perf script -i " + path_ + " -F comm,tid,event 2>/dev/null");
  ASSERT_EQ(perfs.exit_code, 0);
  size_t expected = count_lines_with(perfs.out, "cpu-clock");
  ASSERT_GT(expected, 100u);
  EXPECT_EQ(sample_headers(ours.out), expected);
}

TEST_F(PerfPipeRecording, RawFramesCarryDsoOffsetAndTheBuildIdOfTheMapping) {
  auto ours = run({sonde_bin(), "script", "--no-symbols", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0);
  auto readelf = sh("readelf -n " + demo_bin() + " | sed -n 's/.*Build ID: //p'");
  std::string id = readelf.out.substr(0, readelf.out.find('\n'));
  ASSERT_EQ(id.size(), 40u);
  // e.g. "\t    55d0c1a2b1c9 /path/sonde-demo-workload+0x11c9 <build-id>"
  std::regex frame("\\t +[0-9a-f]+ " + demo_bin() + "\\+0x[0-9a-f]+ " + id);
  size_t hits = 0;
  for (const auto& l : lines(ours.out))
    if (std::regex_match(l, frame)) ++hits;
  EXPECT_GT(hits, 50u);
}

TEST_F(PerfPipeRecording, ScriptReadsStandardInput) {
  std::ifstream in(path_, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto from_file = run({sonde_bin(), "script", "--no-symbols", "-i", path_});
  auto from_pipe = run({sonde_bin(), "script", "--no-symbols", "-i", "-"}, bytes);
  ASSERT_EQ(from_pipe.exit_code, 0) << from_pipe.err;
  EXPECT_EQ(from_pipe.out, from_file.out);
}

TEST_F(PerfPipeRecording, BuildIdListMatchesReadelfForTheWorkloadAndLibc) {
  auto r = run({sonde_bin(), "buildid-list", "-i", path_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (std::string f : {demo_bin(), std::string("/usr/lib/x86_64-linux-gnu/libc.so.6")}) {
    auto id = sh("readelf -n " + f + " | sed -n 's/.*Build ID: //p'").out;
    id = id.substr(0, id.find('\n'));
    EXPECT_NE(r.out.find(id + " " + f), std::string::npos) << f << "\n" << r.out;
  }
  // Every object perf lists, sonde lists with the same id. perf 6.1 lists the
  // kernel only in some runs of the same command (when a kernel sample made
  // it create the kernel's dso); sonde always lists the kernel map it read.
  auto perf = sh("perf buildid-list -i " + path_ + " 2>/dev/null");
  size_t perf_lines = 0;
  // When a sample lands in the vdso, perf also lists the copy of its own
  // vdso it extracted to /tmp, with a blank id: the kernel's MMAP2 for
  // [vdso] carries none (no file behind it), so there is no id to compare.
  for (const auto& l : lines(perf.out)) {
    if (l.empty() || l[0] == ' ') continue;
    ++perf_lines;
    EXPECT_NE(r.out.find(l), std::string::npos) << l << "\n" << r.out;
  }
  size_t ours = 0, kernel = 0;
  for (const auto& l : lines(r.out)) {
    if (l.empty()) continue;
    ++ours;
    kernel += l.find("[kernel.kallsyms]") != std::string::npos;
  }
  EXPECT_GE(perf_lines, 3u) << perf.out;
  EXPECT_LE(ours, perf_lines + kernel) << r.out << "---\n" << perf.out;
}

TEST_F(PerfPipeRecording, TruncatedInputPrintsCompleteSamplesAndSaysWhatItIgnored) {
  TempDir dir;
  std::string cut = dir / "cut.data";
  std::filesystem::copy_file(path_, cut);
  auto size = std::filesystem::file_size(cut);
  std::filesystem::resize_file(cut, size - 37);
  auto r = run({sonde_bin(), "script", "--no-symbols", "-i", cut});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("incomplete record; ignored its last"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines_with(r.err, "sonde"), 1u) << r.err;
  EXPECT_GT(sample_headers(r.out), 100u);
}

TEST(ScriptErrors, CorruptMissingAndForeignInputsAreOneLineErrors) {
  TempDir dir;
  std::string corrupt = dir / "corrupt.data";
  {
    std::ofstream f(corrupt, std::ios::binary);
    f.write("PERFILE2\x10\0\0\0\0\0\0\0", 16);
    const char rec[8] = {3, 0, 0, 0, 0, 0, 2, 0};  // a COMM record of size 2
    f.write(rec, 8);
  }
  auto r = run({sonde_bin(), "script", "-i", corrupt});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad record header size 2"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;

  r = run({sonde_bin(), "script", "-i", dir / "missing.data"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;

  r = run({sonde_bin(), "script", "-i", "/etc/passwd"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a perf.data recording"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u);

  r = run({sonde_bin(), "script", "--no-such-option"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

// FlameGraph's stackcollapse-perf.pl reads `sonde script` output: every line
// is recognized by its regular expressions, and the stacks it folds are the
// ones `sonde convert --to folded` computes on its own.
TEST_F(PerfPipeRecording, StackcollapsePerfReadsScriptOutputAndAgreesWithConvert) {
  TempDir dir;
  auto script = sh(sonde_bin() + " script -i " + path_ + " > " + (dir / "script.txt"));
  ASSERT_EQ(script.exit_code, 0) << script.err;
  auto collapsed = sh("perl " + fixtures_dir() + "/stackcollapse_perf.pl " + (dir / "script.txt"));
  ASSERT_EQ(collapsed.exit_code, 0) << collapsed.err;
  auto folded = sh(sonde_bin() + " convert --to folded --comm-frame -i " + path_ + " -o - | LC_ALL=C sort");
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  // Both sides: "comm;root;...;leaf COUNT". Compare the totals per leaf
  // function (offset-free names), which both compute independently.
  auto per_leaf = [](const std::string& text) {
    std::map<std::string, long> m;
    for (const auto& l : lines(text)) {
      auto sp = l.rfind(' ');
      if (sp == std::string::npos) continue;
      auto stack = l.substr(0, sp);
      m[stack.substr(stack.rfind(';') + 1)] += std::stol(l.substr(sp + 1));
    }
    return m;
  };
  auto a = per_leaf(collapsed.out), b = per_leaf(folded.out);
  ASSERT_FALSE(a.empty());
  EXPECT_GT(a["compute_primes"], 100);
  EXPECT_EQ(a["compute_primes"], b["compute_primes"]);
  EXPECT_EQ(a["hash_strings"], b["hash_strings"]);
}
