// sonde report against perf report on the same recording: same top entries,
// percentages within 0.1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

struct Row {
  double children = 0, self = 0;
  std::string comm, dso, sym;
};

// Parses `perf report --stdio` rows: "  66.51%  66.51%  comm  dso  [.] sym".
std::vector<Row> parse_perf(const std::string& text, bool children) {
  std::vector<Row> rows;
  std::regex re(children ? R"(^\s+([0-9.]+)%\s+([0-9.]+)%\s+(\S+)\s+(\S+)\s+\[[.k]\]\s+(.+?)\s*$)"
                         : R"(^\s+([0-9.]+)%\s+(\S+)\s+(\S+)\s+\[[.k]\]\s+(.+?)\s*$)");
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (!std::regex_match(l, m, re)) continue;
    Row r;
    if (children) {
      r.children = std::stod(m[1]), r.self = std::stod(m[2]), r.comm = m[3], r.dso = m[4], r.sym = m[5];
    } else {
      r.self = std::stod(m[1]), r.comm = m[2], r.dso = m[3], r.sym = m[4];
    }
    rows.push_back(r);
  }
  return rows;
}

std::vector<Row> parse_sonde(const std::string& json, bool children) {
  std::vector<Row> rows;
  auto j = nlohmann::json::parse(json);
  for (const auto& e : j["events"][0]["entries"]) {
    Row r;
    r.self = e["self"];
    if (children) r.children = e["children"];
    r.comm = e["comm"], r.dso = e["dso"], r.sym = e["sym"];
    rows.push_back(r);
  }
  return rows;
}

class DemoRecording : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    path_ = *dir_ / "perf.pipe";
    auto r = sh("perf record -q -g -F 2000 --buildid-mmap -o - -- " + demo_bin() + " 0.5 2>/dev/null > " + path_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static TempDir* dir_;
  static std::string path_;
};
TempDir* DemoRecording::dir_ = nullptr;
std::string DemoRecording::path_;

void expect_same_top(const std::vector<Row>& perf, const std::vector<Row>& ours, size_t n, bool children) {
  ASSERT_GE(perf.size(), n);
  ASSERT_GE(ours.size(), n);
  for (size_t i = 0; i < n; ++i) {
    // Ties may be ordered differently; look the perf row up by name.
    const Row* match = nullptr;
    for (const auto& o : ours)
      if (o.sym == perf[i].sym && o.comm == perf[i].comm) match = &o;
    ASSERT_NE(match, nullptr) << "perf's entry " << perf[i].sym << " is missing from sonde's report";
    EXPECT_NEAR(match->self, perf[i].self, 0.1) << perf[i].sym;
    if (children) {
      EXPECT_NEAR(match->children, perf[i].children, 0.1) << perf[i].sym;
    }
    EXPECT_EQ(match->dso, perf[i].dso) << perf[i].sym;
  }
}

}  // namespace

TEST_F(DemoRecording, SelfTableMatchesPerfReport) {
  auto perf = sh("perf report --stdio --no-children -i " + path_ + " 2>/dev/null");
  auto ours = run({sonde_bin(), "report", "--no-children", "--format", "json", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto p = parse_perf(perf.out, false);
  auto o = parse_sonde(ours.out, false);
  ASSERT_FALSE(p.empty()) << perf.out;
  EXPECT_EQ(o[0].sym, "compute_primes");
  expect_same_top(p, o, 3, false);
}

// perf report computes Children only for file-mode input (in pipe mode it
// cannot know at set-up that call chains were recorded), so this compares on
// a file-mode recording made by perf itself.
TEST(PerfFileRecording, ChildrenTableMatchesPerfReport) {
  TempDir dir;
  std::string path = dir / "perf.data";
  auto rec = sh("perf record -q -N -g -F 2000 -o " + path + " -- " + demo_bin() + " 0.5 2>&1");
  ASSERT_EQ(rec.exit_code, 0) << rec.out;
  auto perf = sh("perf report --stdio --children -i " + path + " 2>/dev/null");
  auto ours = run({sonde_bin(), "report", "--format", "json", "-i", path});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto p = parse_perf(perf.out, true);
  auto o = parse_sonde(ours.out, true);
  expect_same_top(p, o, 4, true);
}

TEST_F(DemoRecording, TextReportHasPerfLikeHeaderAndRows) {
  auto ours = run({sonde_bin(), "report", "--no-children", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out.find("# To display the perf.data header info, please use --header/--header-only options."), 0u);
  EXPECT_NE(ours.out.find("# Samples: "), std::string::npos);
  EXPECT_NE(ours.out.find("of event 'cpu-clock"), std::string::npos);
  EXPECT_NE(ours.out.find("# Total Lost Samples: 0"), std::string::npos);
  EXPECT_NE(ours.out.find("[.] compute_primes"), std::string::npos) << ours.out;
  // The header facts, as perf, only with --header.
  EXPECT_EQ(ours.out.find("# cmdline : "), std::string::npos);
  auto header = run({sonde_bin(), "report", "--no-children", "--header", "-i", path_});
  EXPECT_NE(header.out.find("# cmdline : "), std::string::npos) << header.out;
}

// The first branch of the call-graph tree under the top entry, as a list of
// function names from the root (-G: caller order, for perf and sonde).
std::vector<std::string> hot_path(const std::string& text, const std::string& entry) {
  std::vector<std::string> names;
  auto at = text.find(entry);
  if (at == std::string::npos) return names;
  std::regex name_re(R"(([A-Za-z_][\w.@:]*)\s*$)");
  bool started = false;
  for (const auto& l : lines(text.substr(text.find('\n', at) + 1))) {
    if (l.find_first_not_of(" |") == std::string::npos) {
      if (started) break;  // a blank line ends the tree
      continue;
    }
    // A second branch at the same level ends the first path.
    if (started && l.find("--") != std::string::npos && l.find("---") == std::string::npos) break;
    std::smatch m;
    if (std::regex_search(l, m, name_re)) names.push_back(m[1]);
    started = true;
  }
  return names;
}

TEST_F(DemoRecording, CallGraphHotPathEqualsPerfs) {
  auto ours = run({sonde_bin(), "report", "--no-children", "-G", "--percent-limit", "20", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf report --stdio --no-children -G --percent-limit 20 -i " + path_ + " 2>/dev/null");
  auto a = hot_path(ours.out, "[.] compute_primes");
  auto b = hot_path(perf.out, "[.] compute_primes");
  ASSERT_GE(b.size(), 2u) << perf.out;
  EXPECT_EQ(a, b) << "sonde:\n" << ours.out << "\nperf:\n" << perf.out;
  EXPECT_EQ(a.back(), "compute_primes");
}

TEST_F(DemoRecording, FiltersAndSortKeys) {
  auto ours = run({sonde_bin(), "report", "--no-children", "--format", "json", "--sort", "dso", "-i", path_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto j = nlohmann::json::parse(ours.out);
  // The same top object and share as perf's --sort dso on the same file.
  auto perf = sh("perf report --stdio --no-children --sort dso -i " + path_ + " 2>/dev/null");
  std::smatch m;
  std::regex row(R"(\n\s+([0-9.]+)%\s+(\S+))");
  ASSERT_TRUE(std::regex_search(perf.out, m, row)) << perf.out;
  EXPECT_EQ(j["events"][0]["entries"][0]["dso"], m[2].str()) << perf.out;
  EXPECT_NEAR(j["events"][0]["entries"][0]["self"].get<double>(), std::stod(m[1]), 0.1);
  // As perf: rows of other commands are hidden, the totals stay.
  auto none = run({sonde_bin(), "report", "--format", "json", "--comm", "no-such-comm", "-i", path_});
  ASSERT_EQ(none.exit_code, 0);
  auto events = nlohmann::json::parse(none.out)["events"];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["entries"].size(), 0u);
  EXPECT_GT(events[0]["samples"].get<uint64_t>(), 0u);
  auto limited = run({sonde_bin(), "report", "--no-children", "--format", "json", "--percent-limit", "20", "-i", path_});
  for (const auto& e : nlohmann::json::parse(limited.out)["events"][0]["entries"]) EXPECT_GE(e["self"].get<double>(), 20.0);
}

TEST(ReportErrors, BadOptionsAreUsageErrors) {
  auto r = run({sonde_bin(), "report", "--sort", "bogus", "-i", "/dev/null"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown sort key 'bogus'"), std::string::npos) << r.err;
  r = run({sonde_bin(), "report", "--format", "xml", "-i", "/dev/null"});
  EXPECT_EQ(r.exit_code, 2);
  r = run({sonde_bin(), "report", "-i", "/nonexistent/file"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

// The mission's pipeline: nothing is patched at the end, so a report can read
// the recorder's stdout as it is written.
TEST(ReportPipe, RecordToStdoutPipedIntoReport) {
  auto r = sh(sonde_bin() + " record -q -N -g -o - -- " + demo_bin() + " 0.3 2>/dev/null | " + sonde_bin() +
              " report --no-children --format json -i -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["events"].empty());
  EXPECT_GT(j["events"][0]["samples"].get<uint64_t>(), 50u);
  EXPECT_EQ(j["events"][0]["entries"][0]["sym"], "compute_primes") << r.out;
}
