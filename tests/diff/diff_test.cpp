// sonde diff on two recordings of one fixture run with different mixes of
// work (two_mix.c: 80% then 20% in mix_a): the signs and magnitudes, the
// deltas against perf diff's on the same records (files made by
// `sonde convert --to perf`, since perf 6.1's diff does not read pipe mode),
// objects matched by build-id when their names differ, the differential
// flame graph in headless Chromium, and every bad input's one line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/test_support.h"

using namespace sonde::test;
namespace fs = std::filesystem;

namespace {

const std::string kJsDir = SONDE_EXPORT_JS_DIR;
const std::string kArtifacts = SONDE_DIFF_ARTIFACTS;

struct Row {
  double base = 0, delta = 0;
  bool has_base = false, has_delta = false;
};

class Diff : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("two_mix.c", *dir_ / "two_mix", "-fno-omit-frame-pointer"));
    // A copy under another name: the same build-id.
    fs::copy_file(*dir_ / "two_mix", *dir_ / "renamed_mix");
    record("two_mix", "80", "base.data");
    record("two_mix", "20", "new.data");
    record("renamed_mix", "20", "renamed.data");
  }
  static void TearDownTestSuite() { delete dir_; }
  static void record(const std::string& exe, const std::string& percent_a, const std::string& out) {
    auto r = run({sonde_bin(), "record", "-q", "-g", "-o", *dir_ / out, "--", *dir_ / exe, "0.6", percent_a});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string path(const std::string& name) { return *dir_ / name; }
  // sonde diff's JSON rows of the first event, by "dso sym".
  static std::map<std::string, nlohmann::json> json_rows(const std::string& base, const std::string& now) {
    auto r = run({sonde_bin(), "diff", path(base), path(now), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, nlohmann::json> out;
    auto j = nlohmann::json::parse(r.out);
    for (const auto& row : j["events"][0]["rows"]) out[row["dso"].get<std::string>() + " " + row["sym"].get<std::string>()] = row;
    return out;
  }
  static TempDir* dir_;
};
TempDir* Diff::dir_ = nullptr;

TEST_F(Diff, AFunctionThatGoesFromEightyToTwentyPercent) {
  auto rows = json_rows("base.data", "new.data");
  ASSERT_TRUE(rows.count("two_mix mix_a") && rows.count("two_mix mix_b"));
  const auto& a = rows["two_mix mix_a"];
  const auto& b = rows["two_mix mix_b"];
  EXPECT_NEAR(a["base"].get<double>(), 80, 8) << a;
  EXPECT_NEAR(a["new"].get<double>(), 20, 8) << a;
  EXPECT_NEAR(a["delta"].get<double>(), -60, 10) << a;
  EXPECT_NEAR(b["delta"].get<double>(), 60, 10) << b;
  EXPECT_NEAR(b["ratio"].get<double>(), b["new"].get<double>() / b["base"].get<double>(), 1e-9);
  // The text table: perf diff's columns, the largest change first.
  auto t = run({sonde_bin(), "diff", path("base.data"), path("new.data")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto ls = lines(t.out);
  ASSERT_GE(ls.size(), 7u) << t.out;
  EXPECT_EQ(ls[0], "# Event 'cpu-clock'");
  EXPECT_TRUE(std::regex_search(ls[2], std::regex("^# Baseline  Delta Abs  Shared Object +Symbol"))) << ls[2];
  // The two large changes come first (which of the two is larger varies).
  const std::regex a_row("^ +[0-9.]+% +-[0-9.]+%  two_mix +\\[\\.\\] mix_a$");
  const std::regex b_row("^ +[0-9.]+% +\\+[0-9.]+%  two_mix +\\[\\.\\] mix_b$");
  EXPECT_TRUE((std::regex_search(ls[5], a_row) && std::regex_search(ls[6], b_row)) ||
              (std::regex_search(ls[5], b_row) && std::regex_search(ls[6], a_row)))
      << t.out;
}

// perf diff's "  79.04%    -59.36%  two_mix   [.] mix_a" rows by "dso sym".
std::map<std::string, Row> perf_diff_rows(const std::string& out) {
  std::map<std::string, Row> rows;
  std::regex row(R"(^ +([0-9.]+%)? +([-+][0-9.]+%)? +(\S+) +\[[.k]\] (.+?)\s*$)");
  for (const auto& l : lines(out)) {
    std::smatch m;
    if (l.starts_with("#") || !std::regex_match(l, m, row)) continue;
    Row r;
    if (m[1].matched) r.has_base = true, r.base = std::stod(m[1].str());
    if (m[2].matched) r.has_delta = true, r.delta = std::stod(m[2].str());
    rows[m[3].str() + " " + m[4].str()] = r;
  }
  return rows;
}

TEST_F(Diff, DeltasAgreeWithPerfDiffOnTheSameRecords) {
  for (const char* n : {"base", "new"}) {
    auto c = run({sonde_bin(), "convert", "--to", "perf", "-i", path(std::string(n) + ".data"), "-o", path(std::string(n) + ".perf")});
    ASSERT_EQ(c.exit_code, 0) << c.err;
  }
  auto p = run({"perf", "diff", path("base.perf"), path("new.perf")});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto theirs = perf_diff_rows(p.out);
  auto ours = json_rows("base.data", "new.data");
  size_t compared = 0;
  for (const auto& [key, r] : theirs) {
    auto it = ours.find(key);
    if (it == ours.end() || !r.has_delta) continue;  // perf's versioned names (f@@GLIBC_2.17) differ
    ++compared;
    EXPECT_NEAR(it->second["delta"].get<double>(), r.delta, 0.1) << key;
    if (r.has_base) {
      EXPECT_NEAR(it->second["base"].get<double>(), r.base, 0.1) << key;
    }
  }
  EXPECT_TRUE(theirs.count("two_mix mix_a") && theirs.count("two_mix mix_b")) << p.out;
  EXPECT_GE(compared, 2u);
}

TEST_F(Diff, ObjectsWithOneBuildIdMatchUnderTheBaselinesName) {
  auto rows = json_rows("base.data", "renamed.data");
  ASSERT_TRUE(rows.count("two_mix mix_a")) << "renamed_mix's rows were not matched to two_mix";
  EXPECT_EQ(rows.count("renamed_mix mix_a"), 0u);
  EXPECT_NEAR(rows["two_mix mix_a"]["delta"].get<double>(), -60, 10);
}

TEST_F(Diff, SortPercentLimitAndRatio) {
  auto r = run({sonde_bin(), "diff", path("base.data"), path("new.data"), "--sort", "sym", "--percent-limit", "5",
                "-c", "ratio"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ls = lines(r.out);
  ASSERT_GE(ls.size(), 7u) << r.out;
  EXPECT_TRUE(std::regex_search(ls[2], std::regex("^# Baseline +Ratio  Symbol"))) << ls[2];
  // Two rows above 5%, the larger ratio (mix_b's, about 4) first.
  EXPECT_TRUE(std::regex_search(ls[5], std::regex("^ +[0-9.]+% +[0-9]\\.[0-9]{6}  \\[\\.\\] mix_b$"))) << r.out;
  EXPECT_TRUE(std::regex_search(ls[6], std::regex("^ +[0-9.]+% +0\\.[0-9]{6}  \\[\\.\\] mix_a$"))) << r.out;
  EXPECT_TRUE(ls.size() == 7 || ls[7].empty()) << r.out;
}

TEST_F(Diff, DifferentialFlameGraphInChromium) {
  const std::string page = path("diff.html");
  auto r = run({sonde_bin(), "diff", path("base.data"), path("new.data"), "--to", "html", "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::create_directories(kArtifacts);
  auto b = run({"node", kJsDir + "/diff_browser.js", page, kArtifacts + "/diff.png", "mix_a", "mix_b"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto j = nlohmann::json::parse(b.out);
  EXPECT_TRUE(j["requests"].empty()) << j["requests"];
  EXPECT_TRUE(j["errors"].empty()) << j["errors"];
  EXPECT_NE(j["meta"].get<std::string>().find("differential against base.data"), std::string::npos) << j["meta"];
  auto rows = json_rows("base.data", "new.data");
  for (const char* name : {"mix_a", "mix_b"}) {
    const auto& f = j["frames"][name];
    ASSERT_TRUE(f.is_object()) << name;
    // The page's self shares are the table's. Its frame share also holds
    // the frames above it (the fixture's stop-timer handler may run on top
    // of mix_a or mix_b), never less; how much more depends on how often a
    // loaded machine runs the handler there (2.05 points once under CI-like
    // load), so no upper bound is assumed.
    const std::string tip = f["tooltip"].get<std::string>();
    std::smatch self;
    ASSERT_TRUE(std::regex_search(tip, self, std::regex(R"(self: ([0-9.]+)%)"))) << tip;
    const double table_new = rows[std::string("two_mix ") + name]["new"].get<double>();
    EXPECT_NEAR(std::stod(self[1]), table_new, 0.01) << f;
    EXPECT_GE(f["now"].get<double>(), table_new - 0.01) << f;
    const double table_base = rows[std::string("two_mix ") + name]["base"].get<double>();
    EXPECT_GE(f["base"].get<double>(), table_base - 0.01) << f;
    EXPECT_NE(f["tooltip"].get<std::string>().find("baseline: "), std::string::npos) << f;
  }
  // Shrank: blue (the blue channel is the largest); grew: red.
  std::smatch m;
  std::string a = j["frames"]["mix_a"]["color"], bcol = j["frames"]["mix_b"]["color"];
  ASSERT_TRUE(std::regex_match(a, m, std::regex(R"(rgb\((\d+),(\d+),(\d+)\))")));
  EXPECT_LT(std::stoi(m[1]), std::stoi(m[3])) << a;
  ASSERT_TRUE(std::regex_match(bcol, m, std::regex(R"(rgb\((\d+),(\d+),(\d+)\))")));
  EXPECT_GT(std::stoi(m[1]), std::stoi(m[3])) << bcol;
  EXPECT_NE(j["frames"]["mix_a"]["tooltip"].get<std::string>().find("shrank"), std::string::npos);
  EXPECT_NE(j["frames"]["mix_b"]["tooltip"].get<std::string>().find("grew"), std::string::npos);
}

// One line on stderr, and the exit code.
void expect_error(const std::vector<std::string>& argv, int code, const std::string& text) {
  auto r = run(argv);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Diff, BadInputIsOneLine) {
  const std::string base = path("base.data"), now = path("new.data");
  expect_error({sonde_bin(), "diff", base, path("missing.data")}, 1, "missing.data");
  expect_error({sonde_bin(), "diff", base, now, "-c", "wdiff"}, 2, "unknown --compute 'wdiff'");
  expect_error({sonde_bin(), "diff", base, now, "--sort", "srcline"}, 2, "--sort srcline");
  expect_error({sonde_bin(), "diff", base, now, "--sort", "nonsense"}, 2, "nonsense");
  expect_error({sonde_bin(), "diff", base, now, "--to", "html"}, 2, "needs -o");
  expect_error({sonde_bin(), "diff", base, now, "--to", "pprof", "-o", path("x")}, 2, "unknown --to 'pprof'");
  expect_error({sonde_bin(), "diff", base, now, "--percent-limit", "120"}, 2, "--percent-limit");
  expect_error({sonde_bin(), "diff", base}, 2, "NEW");
  // No event in common: a recording of page faults against one of cpu-clock.
  const std::string faults = path("faults.data");
  auto r = run({sonde_bin(), "record", "-q", "-e", "page-faults", "-c", "1", "-o", faults, "--", path("two_mix"), "0.1", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_error({sonde_bin(), "diff", base, faults}, 1, "no event in common (BASE: cpu-clock; NEW: page-faults)");
  EXPECT_FALSE(fs::exists(path("x")));
}

}  // namespace
