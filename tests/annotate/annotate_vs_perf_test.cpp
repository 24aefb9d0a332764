// sonde annotate and perf annotate --stdio on the same recordings: the same
// header line and, for every instruction perf lists, the same percentage.
#include <gtest/gtest.h>

#include "annotate/annotate_compare.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

// perf 6.1's global-hits base is a counter perf annotate never counts
// (docs/annotate.md), so it prints 0.00 everywhere; the other three types
// compare exactly.
const char* const kPercentTypes[] = {"local-period", "global-period", "local-hits"};

void compare_all_types(const std::string& data, const std::string& perf_data, const std::vector<std::string>& symbol) {
  for (const char* type : kPercentTypes) {
    std::vector<std::string> perf_cmd = {"perf", "annotate", "--stdio", "-i", perf_data, "--percent-type", type};
    std::vector<std::string> sonde_cmd = {sonde_bin(), "annotate", "--stdio", "-i", data, "--percent-type", type};
    perf_cmd.insert(perf_cmd.end(), symbol.begin(), symbol.end());
    sonde_cmd.insert(sonde_cmd.end(), symbol.begin(), symbol.end());
    auto theirs = run(perf_cmd);
    auto ours = run(sonde_cmd);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    expect_same_percentages(theirs.out, ours.out, std::string(type) + (symbol.empty() ? " (all)" : " " + symbol[0]));
  }
}

class AnnotateVsPerf : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("annotate_loop.c", bin_, "-O0 -fno-omit-frame-pointer")); }
  TempDir dir_;
  std::string bin_ = dir_ / "annotate_loop";
};

}  // namespace

TEST_F(AnnotateVsPerf, PerfRecordingEveryInstructionMatches) {
  auto rec = run({"perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-g", "-o", dir_ / "p.data", bin_, "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  compare_all_types(dir_ / "p.data", dir_ / "p.data", {"hot_loop"});
  compare_all_types(dir_ / "p.data", dir_ / "p.data", {});
}

TEST_F(AnnotateVsPerf, SondeRecordingDirectAndConvertedMatches) {
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "2000", "-g", "-o", dir_ / "s.data", "--", bin_, "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto conv = run({sonde_bin(), "convert", "-i", dir_ / "s.data", "--to", "perf", "-o", dir_ / "f.data"});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  compare_all_types(dir_ / "s.data", dir_ / "s.data", {"hot_loop"});  // perf reads the pipe-mode file too
  compare_all_types(dir_ / "s.data", dir_ / "f.data", {"hot_loop"});
  compare_all_types(dir_ / "f.data", dir_ / "f.data", {});
}

TEST_F(AnnotateVsPerf, DwarfCallGraphRecordingMatches) {
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "1000", "--call-graph", "dwarf", "-o", dir_ / "d.data", "--",
                  bin_, "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto conv = run({sonde_bin(), "convert", "-i", dir_ / "d.data", "--to", "perf", "-o", dir_ / "f.data"});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  compare_all_types(dir_ / "d.data", dir_ / "f.data", {"hot_loop"});
}

// The hot loop's line takes most samples, the call in caller() carries the
// inclusive cost of hot_loop (which perf does not show).
TEST_F(AnnotateVsPerf, HotLineAndInclusiveCostOnTheCall) {
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "2000", "-g", "-o", dir_ / "s.data", "--", bin_, "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto r = run({sonde_bin(), "annotate", "-i", dir_ / "s.data", "-l", "hot_loop"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Lines 12-14 hold the loop; together they are nearly every sample.
  auto summary = r.out.substr(0, r.out.find(" Percent |"));
  EXPECT_NE(summary.find("annotate_loop.c:1"), std::string::npos) << summary;
  EXPECT_NE(r.out.find("acc += i * i ^ (acc >> 3);"), std::string::npos) << r.out;
  auto c = run({sonde_bin(), "annotate", "-i", dir_ / "s.data", "caller"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  size_t call = 0;
  for (const auto& l : lines(c.out))
    if (l.find("call") != std::string::npos && l.find("<hot_loop>") != std::string::npos) {
      ++call;
      EXPECT_NE(l.find("# inclusive 100.00%"), std::string::npos) << l;
    }
  EXPECT_EQ(call, 1u) << c.out;
}

// perf's filters and display flags: the same symbols, the same percentage
// at every address (--asm-raw: objdump's continuation lines of long
// instructions included).
TEST_F(AnnotateVsPerf, FiltersAndDisplayFlagsMatch) {
  auto rec = run({"perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", dir_ / "p.data", bin_, "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::vector<std::vector<std::string>> variants = {
      {"--percent-limit", "5"}, {"-d", "annotate_loop"}, {"--asm-raw", "hot_loop"},
      {"-M", "intel", "hot_loop"}, {"--no-source", "hot_loop"}, {"-P", "hot_loop"}};
  for (const auto& extra : variants) {
    std::vector<std::string> perf_cmd = {"perf", "annotate", "--stdio", "-i", dir_ / "p.data"};
    std::vector<std::string> sonde_cmd = {sonde_bin(), "annotate", "--stdio", "-i", dir_ / "p.data"};
    perf_cmd.insert(perf_cmd.end(), extra.begin(), extra.end());
    sonde_cmd.insert(sonde_cmd.end(), extra.begin(), extra.end());
    auto theirs = run(perf_cmd);
    auto ours = run(sonde_cmd);
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    expect_same_percentages(theirs.out, ours.out, extra[0]);
    EXPECT_EQ(parse_annotations(theirs.out).size(), parse_annotations(ours.out).size()) << extra[0];
  }
}

// global-hits: perf 6.1 prints 0.00 everywhere (its base is never counted);
// sonde's instructions add up to the symbol's share of the event's samples,
// which -n's counts and local-hits give independently.
TEST_F(AnnotateVsPerf, GlobalHitsIsTheSymbolsShareOfAllSamples) {
  auto rec = run({"perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", dir_ / "p.data", bin_, "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto theirs = run({"perf", "annotate", "--stdio", "-i", dir_ / "p.data", "--percent-type", "global-hits"});
  for (const auto& a : parse_annotations(theirs.out))
    for (const auto& [addr, pct] : a.percent) EXPECT_EQ(pct, "0.00") << addr;
  auto all = run({sonde_bin(), "annotate", "--stdio", "-i", dir_ / "p.data", "-n", "--percent-type", "global-hits"});
  auto hits = run({sonde_bin(), "annotate", "--stdio", "-i", dir_ / "p.data", "--percent-type", "global-hits"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(hits.exit_code, 0) << hits.err;
  // Every symbol's counts over every symbol's counts is 100%: the samples
  // sonde could not name (kernel code here) are in the base too.
  double total = 0, percent = 0;
  for (const auto& a : parse_annotations(all.out))
    for (const auto& [addr, n] : a.percent) total += std::stod(n);
  for (const auto& a : parse_annotations(hits.out))
    for (const auto& [addr, p] : a.percent) percent += std::stod(p);
  auto report = run({sonde_bin(), "report", "-i", dir_ / "p.data", "--format", "json"});
  auto samples = report.out.substr(report.out.find("\"samples\":") + 10);
  const double event_samples = std::stod(samples);
  EXPECT_NEAR(percent, 100.0 * total / event_samples, 0.01 * double(parse_annotations(hits.out).size()) + 0.2)
      << hits.out;
}

// Every input form sonde reads: its -z (compressed) and --threads
// directory recordings, compared with perf on their `convert --to perf`
// copies; standard input (-i -); -s as the positional SYMBOL; --stdio2 as
// --stdio (docs/annotate.md says why no arrows).
TEST_F(AnnotateVsPerf, CompressedDirectoryAndPipeInputs) {
  for (const char* form : {"-z", "--threads"}) {
    const std::string data = dir_ / (std::string("in") + form);
    auto rec = run({sonde_bin(), "record", "-q", "-N", form, "-F", "2000", "-o", data, "--", bin_, "800"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    auto conv = run({sonde_bin(), "convert", "-i", data, "--to", "perf", "-o", data + ".perf"});
    ASSERT_EQ(conv.exit_code, 0) << conv.err;
    compare_all_types(data, data + ".perf", {"hot_loop"});
  }
  const std::string data = dir_ / "in-z";
  auto named = run({sonde_bin(), "annotate", "--stdio", "-i", data, "hot_loop"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  auto piped = sh(sonde_bin() + " annotate --stdio -i - hot_loop < " + data);
  EXPECT_EQ(piped.out, named.out);
  auto option = run({sonde_bin(), "annotate", "--stdio", "-i", data, "-s", "hot_loop"});
  EXPECT_EQ(option.out, named.out);
  auto stdio2 = run({sonde_bin(), "annotate", "--stdio2", "-i", data, "hot_loop"});
  EXPECT_EQ(stdio2.out, named.out);
}
