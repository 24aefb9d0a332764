// The analysis page of `sonde convert --to html`, driven in headless
// Chromium with real mouse and keyboard events (js/page_browser.js), and
// checked against `sonde script` and `sonde report` of the same recording.
//
// The recording: tests/fixtures/timeline_work.c (a main thread in
// phase_one, nap, phase_two; a worker in worker_spin hitting the SDT probe
// timeline:tick(i, i*i) five times), recorded by sonde with call chains,
// cpu-clock, the probe and off-CPU time.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/test_support.h"

namespace sonde::test {
namespace {

namespace fs = std::filesystem;

const std::string kJsDir = SONDE_EXPORT_JS_DIR;
const std::string kArtifacts = SONDE_EXPORT_ARTIFACTS;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class PageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    if (!fs::exists(kJsDir + "/node_modules/playwright-core")) {
      setup_error_ = kJsDir + "/node_modules is missing: run scripts/install-deps.sh";
      return;
    }
    std::string bin = *dir_ / "timeline_work";
    if (!compile_fixture("timeline_work.c", bin, "-lpthread")) return;
    recording_ = *dir_ / "tl.data";
    RunResult r = run({sonde_bin(), "record", "-g", "-e", "cpu-clock", "-e", "%timeline:tick", "--off-cpu",
                       "--off-cpu-thresh", "50", "-o", recording_, "--", bin});
    if (r.exit_code != 0) {
      setup_error_ = "sonde record failed:\n" + r.err;
      return;
    }
    for (const auto& line : lines(r.out)) {
      if (line.rfind("main ", 0) == 0) main_tid_ = line.substr(5);
      if (line.rfind("worker ", 0) == 0) worker_tid_ = line.substr(7);
    }
    page_ = *dir_ / "tl.html";
    RunResult c = run({sonde_bin(), "convert", "-i", recording_, "--to", "html", "-o", page_});
    if (c.exit_code != 0) {
      setup_error_ = "sonde convert failed:\n" + c.err;
      return;
    }
    fs::create_directories(kArtifacts);
    RunResult b = run({"node", kJsDir + "/page_browser.js", page_, kArtifacts + "/page", worker_tid_, main_tid_, "spin_for"});
    if (b.exit_code != 0) {
      setup_error_ = "the browser check could not run:\n" + b.err;
      return;
    }
    std::printf("[page] %s\n", b.out.c_str());
    seen_ = nlohmann::json::parse(b.out);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_FALSE(seen_.is_null());
    ASSERT_FALSE(main_tid_.empty());
    ASSERT_FALSE(worker_tid_.empty());
  }

  // `sonde script -F tid,event,period` of the recording: one {tid, event, period} per sample.
  struct ScriptSample {
    std::string tid, event;
    uint64_t period = 0;
  };
  static std::vector<ScriptSample> script(const std::vector<std::string>& extra) {
    std::vector<std::string> argv{sonde_bin(), "script", "-i", recording_, "-F", "tid,event,period", "-G"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    RunResult r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<ScriptSample> out;
    for (const auto& line : lines(r.out)) {
      std::istringstream in(line);
      ScriptSample s;
      // perf's order: tid, period, event.
      in >> s.tid >> s.period >> s.event;
      if (!s.event.empty() && s.event.back() == ':') s.event.pop_back();
      if (!s.tid.empty()) out.push_back(s);
    }
    return out;
  }
  static size_t count_event(const std::vector<ScriptSample>& v, const std::string& event) {
    size_t n = 0;
    for (const auto& s : v) n += s.event == event;
    return n;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string recording_, page_, setup_error_, main_tid_, worker_tid_;
  static inline nlohmann::json seen_;
};

TEST_F(PageTest, LanesAreTheRecordingsThreads) {
  std::set<std::string> tids;
  for (const auto& s : script({})) tids.insert(s.tid);
  std::set<std::string> lanes;
  for (const auto& l : seen_["lanes"]) lanes.insert(std::to_string(l["tid"].get<int64_t>()));
  EXPECT_EQ(lanes, tids);
  EXPECT_EQ(lanes, (std::set<std::string>{main_tid_, worker_tid_}));
  // Labelled with comm and tid, grouped by process (one process here).
  EXPECT_EQ(seen_["labelTids"].size(), 2u);
  for (const auto& l : seen_["lanes"]) EXPECT_EQ(l["comm"], "timeline_work");
}

TEST_F(PageTest, DraggingARangeShowsTheSamplesInIt) {
  const auto& d = seen_["drag"];
  // A range of whole bins, not the whole recording.
  EXPECT_GT(d["b0"].get<int>(), 0);
  EXPECT_LT(d["b1"].get<int>(), d["bins"].get<int>());
  EXPECT_LT(d["rootCount"].get<double>(), seen_["initial"]["rootCount"].get<double>());
  // The flame graph's root is exactly what script counts in that range.
  auto in_range = script({"--time", d["start"].get<std::string>() + "," + d["end"].get<std::string>()});
  EXPECT_EQ(d["rootCount"].get<double>(), double(count_event(in_range, "cpu-clock")));
  EXPECT_NE(seen_["selectionText"].get<std::string>().find(d["start"].get<std::string>()), std::string::npos);
  // 10%-40% of the run: the main thread's first phase, not its last. How
  // much of the range phase_one gets depends on how the scheduler shares two
  // cores with the rest of the suite, so only its presence is a fact.
  EXPECT_GT(d["percent"]["phase_one"].get<double>(), 0.0);
  EXPECT_EQ(d["percent"]["phase_two"].get<double>(), 0.0);
  // The whole recording again (key a).
  EXPECT_EQ(seen_["whole"]["rootCount"].get<double>(), double(count_event(script({}), "cpu-clock")));
}

TEST_F(PageTest, ThreadLabelsSelectThreads) {
  const auto& t = seen_["thread"];
  EXPECT_EQ(t["tids"], worker_tid_);
  EXPECT_EQ(t["rootCount"].get<double>(), double(count_event(script({"--tid", worker_tid_}), "cpu-clock")));
  EXPECT_GT(t["rootCount"].get<double>(), 0);
  // Shift-click adds the main thread: everything.
  EXPECT_EQ(seen_["threads"]["tids"], main_tid_ < worker_tid_ ? main_tid_ + "," + worker_tid_ : worker_tid_ + "," + main_tid_);
  EXPECT_EQ(seen_["threads"]["rootCount"], seen_["whole"]["rootCount"]);
}

TEST_F(PageTest, ProbeHitsAreMarkersWithTheirArguments) {
  const auto& m = seen_["markers"];
  ASSERT_EQ(m.size(), 5u);
  RunResult hits = run({sonde_bin(), "script", "-i", recording_, "-F", "time,event", "-G"});
  std::vector<std::string> times;
  for (const auto& line : lines(hits.out))
    if (line.find("%timeline:tick") != std::string::npos) {
      std::string t = line.substr(0, line.find(':'));
      times.push_back(t.substr(t.find_first_not_of(' ')));
    }
  ASSERT_EQ(times.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    std::string args = fmt::format("arg1={} arg2={}", i + 1, (i + 1) * (i + 1));
    EXPECT_EQ(m[i]["args"], args);
    EXPECT_EQ(m[i]["event"], "%timeline:tick");
    EXPECT_EQ(std::to_string(m[i]["tid"].get<int64_t>()), worker_tid_);
    // script prints microseconds; the page nanoseconds.
    std::string t = m[i]["time"];
    EXPECT_EQ(t.substr(0, t.size() - 3), times[i]) << i;
    // Hovering the marker shows its name, time and arguments.
    std::string tip = seen_["tooltips"][i];
    EXPECT_NE(tip.find("%timeline:tick"), std::string::npos) << tip;
    // Two hits a few pixels apart share the pointer's spot (a loaded
    // machine can delay a tick onto the next: 8 us apart in one run), and
    // the tooltip then names one of them: its own, or that neighbour's.
    auto names = [&](const nlohmann::json& marker) {
      return tip.find(marker["args"].get<std::string>()) != std::string::npos &&
             tip.find(marker["time"].get<std::string>()) != std::string::npos;
    };
    bool shown = names(m[i]);
    for (size_t j = 0; j < m.size() && !shown; ++j)
      shown = std::abs(m[j]["x"].get<double>() - m[i]["x"].get<double>()) < 4 && names(m[j]);
    EXPECT_TRUE(shown) << tip;
  }
}

TEST_F(PageTest, BottomUpFirstRowIsReportsFirstRow) {
  RunResult r = run({sonde_bin(), "report", "-i", recording_, "--no-children", "--sort", "sym"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The first table is cpu-clock's; its first row.
  std::string first;
  for (const auto& line : lines(r.out))
    if (!line.empty() && line[0] != '#') {
      first = line;
      break;
    }
  const auto& row = seen_["bottomUp"];
  ASSERT_EQ(row.size(), 4u) << row.dump();
  std::string pct = row[0], name = row[2];
  EXPECT_NE(first.find(pct), std::string::npos) << first << " vs " << row.dump();
  EXPECT_NE(first.find("] " + name), std::string::npos) << first << " vs " << row.dump();
  EXPECT_EQ(name, "spin_for");
  // ArrowRight opened its callers.
  EXPECT_GT(seen_["bottomUpRows"].get<int>(), 2);
}

TEST_F(PageTest, SearchHighlightsInEveryView) {
  for (const char* view : {"flame", "calltree", "bottomup", "callers", "top"})
    EXPECT_GE(seen_["hits"][view].get<int>(), 1) << view;
  EXPECT_NE(seen_["matchText"].get<std::string>().find("Matched:"), std::string::npos);
}

TEST_F(PageTest, NoRequestLeavesThePage) {
  EXPECT_TRUE(seen_["requests"].empty()) << seen_["requests"].dump();
  EXPECT_TRUE(seen_["errors"].empty()) << seen_["errors"].dump();
  std::string html = read_text(page_);
  for (const char* bad : {"<script src", "<link ", "http://", "https://", "fetch(", "XMLHttpRequest", "import("})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
}

TEST_F(PageTest, HeaderStatesTheRecordingsFacts) {
  std::string facts = seen_["facts"];
  for (const char* fact : {"command ", "sonde record -g", "host ", "cpu-clock", "%timeline:tick", "offcpu-time", " lost",
                           "duration "})
    EXPECT_NE(facts.find(fact), std::string::npos) << fact << " in " << facts;
  size_t samples = script({}).size();
  EXPECT_NE(facts.find(fmt::format("{} samples", samples >= 1000 ? fmt::format("{},{:03}", samples / 1000, samples % 1000)
                                                                   : std::to_string(samples))),
            std::string::npos)
      << facts;
}

TEST_F(PageTest, CpuAndOffCpuTimeInOneGraph) {
  ASSERT_TRUE(seen_.contains("both")) << seen_["kinds"].dump();
  const auto& b = seen_["both"];
  uint64_t cpu = 0, off = 0;
  for (const auto& s : script({})) {
    if (s.event == "cpu-clock") cpu += s.period;
    if (s.event.rfind("offcpu-time", 0) == 0) off += s.period;
  }
  EXPECT_GT(off, 90'000'000u);  // nap()'s 100 ms at least
  EXPECT_EQ(b["rootWeight"].get<double>(), double(cpu + off));
  EXPECT_EQ(b["rootOff"].get<double>(), double(off));
  // Both palettes drawn; the sleep's kernel path in the cold one.
  EXPECT_GE(b["flame"]["coldDrawn"].get<int>(), 1);
  EXPECT_GE(b["flame"]["warmDrawn"].get<int>(), 1);
  EXPECT_EQ(b["napCold"], true);
}

// The line of `tests/fixtures/NAME` that contains `text` (1-based), or 0.
uint32_t fixture_line(const std::string& name, const std::string& text) {
  auto all = lines(read_text(fixtures_dir() + "/" + name));
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].find(text) != std::string::npos) return static_cast<uint32_t>(i + 1);
  return 0;
}

TEST(PageInline, FramesShowSourceLinesAndAFunctionsHottestLines) {
  ASSERT_TRUE(fs::exists(kJsDir + "/node_modules/playwright-core"));
  TempDir dir;
  std::string bin = dir / "inline_hot";
  ASSERT_TRUE(compile_fixture("inline_hot.c", bin, "-O2"));
  RunResult r = run({sonde_bin(), "record", "-g", "-o", dir / "in.data", "--", bin, "0.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult c = run({sonde_bin(), "convert", "-i", dir / "in.data", "--to", "html", "--inline", "-o", dir / "in.html"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  fs::create_directories(kArtifacts);
  RunResult b = run({"node", kJsDir + "/page_browser.js", dir / "in.html", kArtifacts + "/page-inline", "--lines", "mix_inlined"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::printf("[page --inline] %s\n", b.out.c_str());
  auto j = nlohmann::json::parse(b.out);
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  // outer_hot's frame names the line of its call to the inlined function.
  const uint32_t call = fixture_line("inline_hot.c", "acc += mix_inlined(i)");
  const uint32_t loop = fixture_line("inline_hot.c", "x = x * 6364136223846793005UL");
  ASSERT_GT(call, 0u);
  bool labelled = false;
  for (const auto& l : j["labels"]) labelled |= l == fmt::format("outer_hot inline_hot.c:{}", call);
  EXPECT_TRUE(labelled) << j["labels"].dump();
  // mix_inlined's view: its hottest line is its loop.
  EXPECT_NE(j["callersTitle"].get<std::string>().find("mix_inlined"), std::string::npos);
  ASSERT_FALSE(j["hotLines"].empty());
  std::string hottest = j["hotLines"][0];
  EXPECT_NE(hottest.find(fmt::format("inline_hot.c:{}", loop)), std::string::npos) << j["hotLines"].dump();
}

TEST(PageEmpty, AnEmptyRecordingMakesAPageThatSaysSo) {
  ASSERT_TRUE(fs::exists(kJsDir + "/node_modules/playwright-core"));
  TempDir dir;
  // At 1 Hz, /bin/true ends before its first sample.
  RunResult r = run({sonde_bin(), "record", "-F", "1", "-o", dir / "empty.data", "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.err.find(" 0 samples"), std::string::npos) << r.err;
  RunResult c = run({sonde_bin(), "convert", "-i", dir / "empty.data", "--to", "html", "-o", dir / "empty.html"});
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err, "sonde convert: no samples in " + dir / "empty.data" + "; the page says so\n");
  fs::create_directories(kArtifacts);
  RunResult b = run({"node", kJsDir + "/page_browser.js", dir / "empty.html", kArtifacts + "/page-empty", "--empty"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto j = nlohmann::json::parse(b.out);
  EXPECT_TRUE(j["empty"].get<bool>());
  EXPECT_EQ(j["emptyText"], "Nothing to show: no samples in " + dir / "empty.data" + ".");
  EXPECT_TRUE(j["requests"].empty());
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  // Other formats have nothing to write: one line, exit 1, no file.
  RunResult f = run({sonde_bin(), "convert", "-i", dir / "empty.data", "--to", "folded", "-o", dir / "empty.folded"});
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_EQ(f.err, "sonde: convert: no samples in " + dir / "empty.data" + "\n");
  EXPECT_FALSE(fs::exists(dir / "empty.folded"));
}

}  // namespace
}  // namespace sonde::test
