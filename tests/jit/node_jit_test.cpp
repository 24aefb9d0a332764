// JIT frames of the real Node.js (v20 here): the fixture tests/fixtures/
// jit_hot.js spends most of its time in hotLoop, called from outer. node
// describes its code in /tmp/perf-PID.map (--perf-basic-prof) or in a
// jitdump in its working folder (--perf-prof); --interpreted-frames-native-
// stack gives interpreted functions (outer, before it is compiled) frames
// of their own. sonde record copies those files beside the recording, the
// test removes the originals, and the readers still name every frame.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <regex>

#include "jit/jit_files.h"
#include "util/fs.h"
#include "support/test_support.h"

using namespace sonde::test;
namespace fs = std::filesystem;

namespace {

bool have_node() { return sh("command -v node >/dev/null").exit_code == 0; }

// Function names per sample, leaf first, from `sonde script -F ip,sym`.
std::vector<std::vector<std::string>> chains(const std::string& script) {
  static const std::regex frame(R"(^\s+[0-9a-f]+ (.+)$)");
  std::vector<std::vector<std::string>> out;
  bool in_sample = false;
  for (const auto& l : lines(script)) {
    std::smatch m;
    if (!l.empty() && (l[0] == '\t' || l[0] == ' ') && std::regex_match(l, m, frame)) {
      if (!in_sample) out.emplace_back();
      in_sample = true;
      out.back().push_back(m[1]);
    } else {
      in_sample = false;
    }
  }
  return out;
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// A recording of the fixture in `dir` (node's working folder, where a
// jitdump goes). The JIT files node wrote are removed once it is done, as
// a cleaned /tmp would: only the recording's copies remain.
class NodeRun {
 public:
  NodeRun(const TempDir& dir, const std::string& node_flags, const std::string& call_graph) : data_(dir / "node.data") {
    const std::string script = fixtures_dir() + "/jit_hot.js";
    auto r = sh("cd " + dir.path() + " && " + sonde_bin() + " record -q " + call_graph + " -o " + data_ +
                " -- node " + node_flags + " --no-turbo-inlining " + script + " 3000");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "ok\n");
    for (const auto& e : fs::directory_iterator(sonde::jit::jit_dir_for(data_))) {
      const std::string name = e.path().filename();
      copies_.push_back(name);
      if (auto pid = sonde::jit::perf_map_pid(name)) originals_.push_back("/tmp/perf-" + std::to_string(*pid) + ".map");
      if (sonde::jit::jitdump_pid(name)) originals_.push_back(dir / name);
    }
    for (const auto& o : originals_) fs::remove(o);
  }
  ~NodeRun() {
    for (const auto& o : originals_) fs::remove(o);
  }
  const std::string& data() const { return data_; }
  const std::vector<std::string>& copies() const { return copies_; }

 private:
  std::string data_;
  std::vector<std::string> copies_, originals_;
};

// Of the samples, the share whose leaf is hotLoop, and of those the share
// called by outer (the next frame).
struct Shares {
  size_t samples = 0, hot = 0, from_outer = 0, to_start = 0;
};
Shares shares(const std::string& data) {
  auto r = run({sonde_bin(), "script", "-F", "ip,sym", "-i", data});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Shares s;
  for (const auto& c : chains(r.out)) {
    ++s.samples;
    if (c.empty() || !has(c[0], "hotLoop")) continue;
    ++s.hot;
    s.from_outer += c.size() > 1 && has(c[1], "outer");
    s.to_start += c.back() == "_start";
  }
  return s;
}

// Most samples are in hotLoop, nearly all of them with outer as its caller.
void expect_hot_loop_under_outer(const std::string& data) {
  Shares s = shares(data);
  ASSERT_GT(s.samples, 500u);
  EXPECT_GT(s.hot * 10, s.samples * 6) << s.hot << " of " << s.samples << " samples in hotLoop";
  EXPECT_GT(s.from_outer * 10, s.hot * 9) << s.from_outer << " of " << s.hot << " hotLoop samples called by outer";
}

}  // namespace

TEST(NodeJit, APerfMapNamesHotLoopWithOuterAsItsCallerAfterTmpIsCleaned) {
  if (!have_node()) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  NodeRun node(dir, "--perf-basic-prof --interpreted-frames-native-stack", "-g");
  ASSERT_EQ(node.copies().size(), 1u);
  EXPECT_TRUE(node.copies()[0].starts_with("perf-")) << node.copies()[0];
  ASSERT_NO_FATAL_FAILURE(expect_hot_loop_under_outer(node.data()));
}

TEST(NodeJit, AJitdumpNamesHotLoopWithOuterAsItsCallerAndItsSourceLine) {
  if (!have_node()) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  NodeRun node(dir, "--perf-prof --interpreted-frames-native-stack", "-g");
  ASSERT_EQ(node.copies().size(), 1u);
  EXPECT_TRUE(node.copies()[0].starts_with("jit-")) << node.copies()[0];
  ASSERT_NO_FATAL_FAILURE(expect_hot_loop_under_outer(node.data()));
  // DEBUG_INFO: hotLoop's time is in its loop, line 7 of the fixture, which
  // is the report's first row by source line.
  auto r = run({sonde_bin(), "report", "--stdio", "-q", "--no-children", "--sort", "srcline", "-i", node.data()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = lines(r.out);
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(rows[0].ends_with("  jit_hot.js:7")) << r.out.substr(0, 400);
}

TEST(NodeJit, DwarfUnwindingGoesThroughJitFramesToNodesStart) {
  if (!have_node()) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  NodeRun node(dir, "--perf-prof --interpreted-frames-native-stack", "--call-graph dwarf");
  ASSERT_NO_FATAL_FAILURE(expect_hot_loop_under_outer(node.data()));
  Shares s = shares(node.data());
  // Through the JIT frames (no CFI: their frame pointers) into node's
  // native frames (CFI) and down to _start.
  EXPECT_GT(s.to_start * 10, s.hot * 9) << s.to_start << " of " << s.hot << " hotLoop samples reach _start";
  auto r = run({sonde_bin(), "report", "--stdio", "-i", node.data()});
  EXPECT_NE(r.out.find("user frames were found by following frame pointers through code with no CFI object"),
            std::string::npos);
}

// perf's way: `perf record -k mono`, then `perf inject --jit` (an ELF file
// per function) and `perf report`. sonde reads perf's recording as it is,
// with the jitdump, and both name hotLoop as the top function.
TEST(NodeJit, PerfsMonoRecordingIsReadWithTheJitdumpAndAgreesWithPerfInject) {
  if (!have_node()) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  const std::string data = dir / "perf.data", injected = dir / "injected.data";
  // perf's build-id cache in the scratch folder: inject adds every jitted .so to it.
  const std::string perf = "perf --buildid-dir " + dir / "debug";
  auto r = sh("cd " + dir.path() + " && " + perf + " record -q -k mono -g -o " + data +
              " -- node --perf-prof --interpreted-frames-native-stack --no-turbo-inlining " + fixtures_dir() +
              "/jit_hot.js 2000 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = sh(perf + " inject --jit -i " + data + " -o " + injected + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto top_row = [](const std::string& report) {
    for (const auto& l : lines(report))
      if (!l.empty() && l[0] != '#') return l;
    return std::string();
  };
  auto perf_top = top_row(sh(perf + " report --stdio -q --no-children --sort sym -i " + injected + " 2>/dev/null").out);
  auto sonde_report = run({sonde_bin(), "report", "--stdio", "-q", "--no-children", "--sort", "sym", "-i", data});
  ASSERT_EQ(sonde_report.exit_code, 0) << sonde_report.err;
  auto sonde_top = top_row(sonde_report.out);
  EXPECT_TRUE(has(perf_top, "JS:*hotLoop")) << perf_top;
  EXPECT_TRUE(has(sonde_top, "JS:*hotLoop")) << sonde_top;
  // The same share of the samples, to the percent (the same recording).
  EXPECT_EQ(perf_top.substr(0, perf_top.find('%')), sonde_top.substr(0, sonde_top.find('%')))
      << "perf: " << perf_top << "\nsonde: " << sonde_top;
}

// perf names JIT frames from /tmp/perf-PID.map only: convert --to perf
// turns the recording's jitdump into one (convert/perf_jit_maps.h). Without
// it perf sees node's anonymous code; with it, perf's report names the same
// top function with the same share as sonde's.
TEST(NodeJit, ConvertToPerfWritesThePerfMapPerfNamesJitFramesWith) {
  if (!have_node()) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  NodeRun node(dir, "--perf-prof --interpreted-frames-native-stack", "-g");
  const std::string out = dir / "perf.data", maps = dir / "maps";
  auto conv = run({sonde_bin(), "convert", "--to", "perf", "-i", node.data(), "-o", out, "--jit-maps", maps});
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  std::vector<fs::path> written;
  for (const auto& e : fs::directory_iterator(maps)) written.push_back(e.path());
  ASSERT_EQ(written.size(), 1u);
  const auto pid = sonde::jit::perf_map_pid(written[0].filename().string());
  ASSERT_TRUE(pid);
  EXPECT_TRUE(has(sonde::read_small_file(written[0]).value_or(""), "JS:*hotLoop")) << "the jitdump's loads are in the map";

  auto top_row = [](const std::string& report) {
    for (const auto& l : lines(report))
      if (!l.empty() && l[0] != '#') return l;
    return std::string();
  };
  auto perf_top = [&] { return top_row(sh("perf report --stdio -q --no-children --sort sym -i " + out + " 2>/dev/null").out); };
  const std::string tmp_map = "/tmp/perf-" + std::to_string(*pid) + ".map";
  ASSERT_FALSE(fs::exists(tmp_map)) << tmp_map << " belongs to someone else";
  EXPECT_FALSE(has(perf_top(), "hotLoop")) << "without the map perf cannot name JIT code";
  fs::copy_file(written[0], tmp_map);
  struct Remove {
    std::string path;
    ~Remove() { fs::remove(path); }
  } remove{tmp_map};
  const std::string with_map = perf_top();
  auto ours = run({sonde_bin(), "report", "--stdio", "-q", "--no-children", "--sort", "sym", "-i", node.data()});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const std::string sonde_top = top_row(ours.out);
  EXPECT_TRUE(has(with_map, "JS:*hotLoop")) << with_map;
  EXPECT_TRUE(has(sonde_top, "JS:*hotLoop")) << sonde_top;
  EXPECT_EQ(with_map.substr(0, with_map.find('%')), sonde_top.substr(0, sonde_top.find('%')))
      << "perf: " << with_map << "\nsonde: " << sonde_top;
}
