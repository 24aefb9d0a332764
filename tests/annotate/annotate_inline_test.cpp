// An -O2 build where mix() is inlined into two callers: its source lines
// show under mix's own file and line in both listings, and -l's table over
// both symbols adds the copies up.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

// Samples per source line number in the listings of `text` (-n): each
// instruction counts for the last "         : LINE   source" marker.
std::map<int, uint64_t> samples_per_line(const std::string& text) {
  static const std::regex marker(R"(^ {9}: (\d+) )");
  static const std::regex insn(R"(^ +(\d+) : +[0-9a-f]+:)");
  std::map<int, uint64_t> out;
  int current = 0;
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (l.starts_with(" Samples |")) current = 0;
    else if (std::regex_search(l, m, marker)) current = std::stoi(m[1]);
    else if (std::regex_search(l, m, insn) && current) out[current] += std::stoull(m[1]);
  }
  return out;
}

}  // namespace

TEST(AnnotateInline, PerLineTableAddsUpTheInlinedCopies) {
  TempDir dir;
  std::string bin = dir / "annotate_inline";
  ASSERT_TRUE(compile_fixture("annotate_inline.c", bin, "-O2 -fno-omit-frame-pointer"));
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "2000", "-g", "-o", dir / "r.data", "--", bin, "300"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto r = run({sonde_bin(), "annotate", "-i", dir / "r.data", "-l", "-n", "first_caller", "second_caller"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // mix's loop body (line 10) is in both callers' code.
  static const std::regex row(R"(^ +[0-9.]+ +(\d+)  annotate_inline\.c:10  (.*)$)");
  uint64_t table = 0;
  std::string copies;
  for (const auto& l : lines(r.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row)) table = std::stoull(m[1]), copies = m[2];
  }
  ASSERT_GT(table, 0u) << r.out;
  EXPECT_NE(copies.find("mix() in first_caller"), std::string::npos) << copies;
  EXPECT_NE(copies.find("mix() in second_caller"), std::string::npos) << copies;
  EXPECT_EQ(samples_per_line(r.out)[10], table) << r.out;
  // Each listing says where mix() was inlined.
  EXPECT_NE(r.out.find("mix() inlined into first_caller at annotate_inline.c:16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mix() inlined into second_caller at annotate_inline.c:22"), std::string::npos) << r.out;
}

namespace {

// perf annotate -l's "Sorted summary" rows of `text`: "annotate_inline.c:10" -> "99.33".
std::map<std::string, std::string> perf_summary(const std::string& text) {
  static const std::regex row(R"(^ +([0-9]+\.[0-9]+) (annotate_inline\.c:\d+)$)");
  std::map<std::string, std::string> out;
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (std::regex_match(l, m, row)) out[m[2]] = m[1];
  }
  return out;
}

}  // namespace

// perf's own per-symbol line summaries (-l) on a perf recording: sonde's
// are the same rows and percentages, and the cross-symbol table's count for
// mix()'s line is what perf's two summaries give (percent of each symbol's
// samples, added up), to perf's rounding.
TEST(AnnotateInline, PerSymbolSummariesArePerfsAndTheTableAddsThem) {
  TempDir dir;
  std::string bin = dir / "annotate_inline";
  ASSERT_TRUE(compile_fixture("annotate_inline.c", bin, "-O2 -fno-omit-frame-pointer"));
  auto rec = run({"perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", dir / "p.data", bin, "300"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  double from_perf = 0;
  for (const char* sym : {"first_caller", "second_caller"}) {
    auto theirs = run({"perf", "annotate", "--stdio", "-l", "-i", dir / "p.data", sym});
    auto ours = run({sonde_bin(), "annotate", "--stdio", "-l", "-i", dir / "p.data", sym});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    auto want = perf_summary(theirs.out);
    ASSERT_FALSE(want.empty()) << theirs.out;
    EXPECT_EQ(perf_summary(ours.out), want) << sym << "\n" << ours.out;
    static const std::regex header(R"(\((\d+) samples, percent: local period\))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(theirs.out, m, header)) << theirs.out;
    from_perf += std::stod(want["annotate_inline.c:10"]) / 100.0 * std::stod(m[1]);
  }
  auto table = run({sonde_bin(), "annotate", "--stdio", "-l", "-n", "-i", dir / "p.data", "first_caller", "second_caller"});
  static const std::regex row(R"(^ +[0-9.]+ +(\d+)  annotate_inline\.c:10  )");
  double ours = -1;
  for (const auto& l : lines(table.out)) {
    std::smatch m;
    if (ours < 0 && std::regex_search(l, m, row)) ours = std::stod(m[1]);
  }
  EXPECT_NEAR(ours, from_perf, 0.5) << table.out;
}
