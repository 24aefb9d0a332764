// The page's annotate view (convert --to html) in headless Chromium: a
// click on the hot function (top table, flame graph, bottom-up table), then
// the Annotate tab, shows its instructions
// and lines; the hottest line is `sonde annotate -l`'s, the call in caller()
// shows the cost below it, and a range selection changes the figures.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

using namespace sonde::test;

TEST(AnnotatePage, ClickingTheHotFunctionShowsItsLinesAndInstructions) {
  const std::string js = SONDE_ANNOTATE_JS_DIR;
  const std::string modules = SONDE_EXPORT_JS_DIR "/node_modules";
  ASSERT_TRUE(std::filesystem::exists(modules + "/playwright-core")) << "run scripts/install-deps.sh";
  TempDir dir;
  std::string bin = dir / "annotate_loop";
  ASSERT_TRUE(compile_fixture("annotate_loop.c", bin, "-O0 -fno-omit-frame-pointer"));
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "2000", "-g", "-o", dir / "r.data", "--", bin, "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto conv = run({sonde_bin(), "convert", "-i", dir / "r.data", "--to", "html", "-o", dir / "r.html"});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  // sonde annotate's hottest line of hot_loop: the first row of -l's summary.
  auto text = run({sonde_bin(), "annotate", "-i", dir / "r.data", "-l", "hot_loop"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string hottest;
  for (const auto& l : lines(text.out))
    if (hottest.empty() && l.find("annotate_loop.c:") != std::string::npos) hottest = l.substr(l.find("annotate_loop.c:"));
  ASSERT_FALSE(hottest.empty()) << text.out;

  auto b = sh("NODE_PATH=" + modules + " node " + js + "/annotate_browser.js " + (dir / "r.html") + " hot_loop views");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto seen = nlohmann::json::parse(b.out);
  EXPECT_EQ(seen["view"], "annotate") << b.out;
  EXPECT_TRUE(seen["errors"].empty()) << b.out;
  ASSERT_TRUE(seen["annotate"].is_object()) << b.out;
  EXPECT_EQ(seen["annotate"]["name"], "hot_loop");
  EXPECT_EQ(seen["annotate"]["hottestLine"], hottest) << b.out;
  EXPECT_GT(seen["instructions"].get<int>(), 10) << b.out;
  EXPECT_NE(seen["firstLine"].get<std::string>().find(hottest), std::string::npos) << b.out;
  // The selection changed: the figures are of the first tenth only.
  ASSERT_TRUE(seen["afterDrag"].is_object()) << b.out;
  double whole = 0, part = 0;
  for (const auto& l : seen["annotate"]["lines"]) whole += l["percent"].get<double>();
  for (const auto& l : seen["afterDrag"]["lines"]) part += l["percent"].get<double>();
  EXPECT_GT(whole, 95.0) << b.out;  // hot_loop is nearly every sample
  EXPECT_GT(part, 0.0) << b.out;
  // A click on the function in the flame graph or the bottom-up table opens it too.
  EXPECT_EQ(seen["fromView"]["flame"], "hot_loop") << b.out;
  EXPECT_EQ(seen["fromView"]["bottomup"], "hot_loop") << b.out;

  auto c = sh("NODE_PATH=" + modules + " node " + js + "/annotate_browser.js " + (dir / "r.html") + " caller");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto callers = nlohmann::json::parse(c.out);
  ASSERT_EQ(callers["calls"].size(), 1u) << c.out;
  EXPECT_NE(callers["calls"][0].get<std::string>().find("<hot_loop>"), std::string::npos) << c.out;
}

// The thread selection: spin_a's figures are its own thread's; with only
// the other thread selected it has none.
TEST(AnnotatePage, TheViewFollowsTheThreadSelection) {
  const std::string js = SONDE_ANNOTATE_JS_DIR;
  const std::string modules = SONDE_EXPORT_JS_DIR "/node_modules";
  ASSERT_TRUE(std::filesystem::exists(modules + "/playwright-core")) << "run scripts/install-deps.sh";
  TempDir dir;
  ASSERT_TRUE(compile_fixture("two_threads.c", dir / "two_threads", "-O1 -pthread"));
  auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "1000", "-g", "-o", dir / "r.data", "--", dir / "two_threads", "0.3"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto conv = run({sonde_bin(), "convert", "-i", dir / "r.data", "--to", "html", "-o", dir / "r.html"});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  // Each spinner's thread, from the samples whose leaf it is: a sample is
  // its tid's line, then its frames, leaf first.
  auto script = run({sonde_bin(), "script", "-i", dir / "r.data", "-F", "tid,ip,sym"});
  std::map<std::string, std::string> tid_of;
  std::string tid;
  bool leaf = false;
  for (const auto& l : lines(script.out)) {
    std::istringstream fields(l);
    std::string first, second;
    fields >> first >> second;
    // A sample's line is its tid, right-aligned (a short tid starts with
    // blanks); its frames start with a tab.
    if (!l.empty() && l[0] != '\t') {
      tid = first, leaf = true;
    } else if (leaf && !first.empty()) {
      if (second.starts_with("spin_")) tid_of[second] = tid;
      leaf = false;
    }
  }
  ASSERT_EQ(tid_of.size(), 2u) << script.out;
  ASSERT_NE(tid_of["spin_a"], tid_of["spin_b"]);
  auto b = sh("NODE_PATH=" + modules + " node " + js + "/annotate_browser.js " + (dir / "r.html") + " spin_a threads " +
              tid_of["spin_a"] + " " + tid_of["spin_b"]);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto seen = nlohmann::json::parse(b.out);
  EXPECT_TRUE(seen["errors"].empty()) << b.out;
  ASSERT_TRUE(seen["ownThread"].is_object()) << b.out;
  ASSERT_TRUE(seen["otherThread"].is_object()) << b.out;
  EXPECT_EQ(seen["ownThread"]["name"], "spin_a");
  EXPECT_FALSE(seen["ownThread"]["lines"].empty()) << b.out;
  EXPECT_TRUE(seen["otherThread"]["lines"].empty()) << b.out;
}
