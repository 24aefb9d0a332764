// Exporters on Profiles built in memory: names that could break the formats
// (a "</script>" in a symbol, ';' in a template), recursion, inline frames,
// and a profile of a million samples over 100k distinct stacks, whose HTML
// page must stay responsive in headless Chromium.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "convert/convert.h"
#include "analysis/profile.h"
#include "support/synthetic_profile.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

namespace fs = std::filesystem;
using analysis::Profile;

const std::string kJsDir = SONDE_EXPORT_JS_DIR;
const std::string kArtifacts = SONDE_EXPORT_ARTIFACTS;

// A tiny builder: functions by name, stacks root first.
struct ProfileMaker {
  Profile p;
  std::map<std::string, uint32_t> fn_index;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> node_index;

  ProfileMaker() {
    p.events.push_back({"cpu-clock", sonde::format::EventKind::kCpuTime, 0, 0});
    analysis::ProfileMapping m;
    m.start = 0x400000, m.end = 0x500000, m.path = p.intern("/usr/bin/app"), m.build_id = p.intern("abcdef0123456789");
    p.mappings.push_back(m);
  }
  uint32_t location(const std::string& name) {
    auto it = fn_index.find(name);
    if (it != fn_index.end()) return it->second;
    uint32_t id = sonde::test::add_function_location(p, name, 0, 0x400000 + 16 * p.locations.size());
    fn_index.emplace(name, id);
    return id;
  }
  uint32_t stack_of(const std::vector<uint32_t>& locs) {
    uint32_t node = UINT32_MAX;
    for (uint32_t l : locs) {
      auto [it, fresh] = node_index.try_emplace({node, l}, static_cast<uint32_t>(p.nodes.size()));
      if (fresh) p.nodes.push_back({node, l, node == UINT32_MAX ? 0 : p.nodes[node].depth + 1});
      node = it->second;
    }
    return node;
  }
  void sample(const std::vector<std::string>& names, uint64_t count, uint32_t tid = 100) {
    std::vector<uint32_t> locs;
    for (const auto& n : names) locs.push_back(location(n));
    add(stack_of(locs), count, tid);
  }
  void add(uint32_t stack, uint64_t count, uint32_t tid = 100) {
    analysis::ProfileSample s;
    s.pid = 100, s.tid = tid, s.comm = p.intern("app"), s.stack = stack, s.count = count, s.period = count * 250000;
    s.first_time = p.samples.size();
    p.samples.push_back(s);
    p.events[0].samples += count;
    p.events[0].period += s.period;
  }
};

std::string to_string_folded(const Profile& p, convert::FoldedOptions o = {}) {
  std::ostringstream out;
  convert::write_folded(p, o, out);
  return out.str();
}

const std::string kEvil = "</script><script>document.title='pwned'</script>";

ProfileMaker small_profile() {
  ProfileMaker m;
  m.sample({"main", "walk", "walk", "walk", "leaf"}, 30);  // recursion
  m.sample({"main", "walk", "leaf"}, 10);
  m.sample({"main", "std::map<int; int>::find"}, 5);
  m.sample({"main", kEvil}, 55);
  return m;
}

TEST(ExportSynthetic, FoldedEscapesAndAggregates) {
  auto m = small_profile();
  std::string f = to_string_folded(m.p);
  EXPECT_NE(f.find("main;walk;walk;walk;leaf 30\n"), std::string::npos) << f;
  EXPECT_NE(f.find("main;std::map<int: int>::find 5\n"), std::string::npos) << f;
  convert::FoldedOptions o;
  o.pid_frame = true;
  EXPECT_NE(to_string_folded(m.p, o).find("app-100;main;walk;leaf 10\n"), std::string::npos);
}

TEST(ExportSynthetic, SpeedscopeIsValidJsonWithThreads) {
  auto m = small_profile();
  m.sample({"main", "other"}, 7, 101);
  std::ostringstream out;
  convert::write_speedscope(m.p, {"x"}, out);
  auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["profiles"].size(), 2u);
  EXPECT_EQ(j["profiles"][0]["name"], "app 100/100 (cpu-clock)");
  uint64_t total = 0;
  for (const auto& p : j["profiles"])
    for (const auto& w : p["weights"]) total += w.get<uint64_t>();
  EXPECT_EQ(total, m.p.events[0].period);
  bool evil = false;
  for (const auto& f : j["shared"]["frames"]) evil |= f["name"] == kEvil;
  EXPECT_TRUE(evil);
}

TEST(ExportSynthetic, HtmlSurvivesHostileNamesAndRecursion) {
  ASSERT_TRUE(fs::exists(kJsDir + "/node_modules/playwright-core"))
      << "run scripts/install-deps.sh (npm ci in " << kJsDir << ")";
  auto m = small_profile();
  TempDir dir;
  std::string page = dir / "evil.html";
  {
    std::ofstream out(page);
    convert::HtmlOptions ho;
    ho.title = "a <b>title</b>", ho.top_functions = 100;
    convert::write_html(m.p, ho, out);
  }
  fs::create_directories(kArtifacts);
  RunResult b = run({"node", kJsDir + "/browser.js", page, kArtifacts + "/synthetic", kEvil, "walk"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto j = nlohmann::json::parse(b.out);
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  EXPECT_EQ(j["title"], "a <b>title</b>");  // the name's script did not run; the title is text
  EXPECT_NEAR(j["hotPercent"].get<double>(), 55.0, 1e-9);  // 55 of 100 samples
  EXPECT_GE(j["hotBoxes"].get<int>(), 1);
  // walk recurses: counted once per stack, 40 of 100.
  EXPECT_NEAR(j["searched"]["matchPercent"].get<double>(), 40.0, 1e-9);
  EXPECT_EQ(j["zoomed"]["zoom"], kEvil);
}

TEST(ExportSynthetic, HtmlOfAMillionSamplesStaysResponsive) {
  ASSERT_TRUE(fs::exists(kJsDir + "/node_modules/playwright-core"))
      << "run scripts/install-deps.sh (npm ci in " << kJsDir << ")";
  // 1,000,000 samples over 100,000 distinct stacks of depth 4..40 drawn
  // from 3,000 functions, with one hot path.
  ProfileMaker m;
  std::mt19937 rng(42);
  std::vector<uint32_t> fns;
  for (int i = 0; i < 3000; ++i) fns.push_back(m.location("ns::function_" + std::to_string(i) + "(int, char const*)"));
  uint32_t hot = m.location("hot_function");
  std::vector<uint32_t> locs;
  uint64_t samples = 0;
  for (int s = 0; s < 100000; ++s) {
    locs.clear();
    locs.push_back(fns[0]);  // one root, like main
    int depth = 4 + static_cast<int>(rng() % 37);
    // Shared prefixes make a realistic tree: the first levels come from few functions.
    for (int d = 1; d < depth; ++d) locs.push_back(fns[rng() % (d < 4 ? 8 * d : 3000)]);
    uint64_t n = s % 10 == 0 ? 6 : 9;  // 1,000,000 - 10% hot
    samples += n;
    m.add(m.stack_of(locs), n);
  }
  m.add(m.stack_of({fns[0], fns[1], hot}), 1000000 - samples);
  ASSERT_EQ(m.p.events[0].samples, 1000000u);

  TempDir dir;
  std::string page = dir / "big.html";
  {
    std::ofstream out(page);
    convert::HtmlOptions ho;
    ho.title = "big", ho.top_functions = 1000;
    convert::write_html(m.p, ho, out);
  }
  std::printf("[html-1M] %zu stack nodes, page %ju KB\n", m.p.nodes.size(), uintmax_t(fs::file_size(page) / 1024));
  RunResult b = run({"node", kJsDir + "/browser.js", page, kArtifacts + "/million", "hot_function", "function_7\\("});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto j = nlohmann::json::parse(b.out);
  std::printf("[html-1M] tree nodes %d, load %d ms, click %d ms, search %d ms\n", j["nodeCount"].get<int>(),
              j["loadMs"].get<int>(), j["clickMs"].get<int>(), j["searchMs"].get<int>());
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  EXPECT_NEAR(j["hotPercent"].get<double>(), 100.0 * double(1000000 - samples) / 1e6, 1e-6);
  EXPECT_EQ(j["zoomed"]["zoom"], "hot_function");
  // How long loading, clicking and searching take is measured by
  // bench/html_scale.sh (docs/benchmarks.md), not asserted here.
  // Pruning: far fewer boxes drawn than nodes exist.
  EXPECT_LT(j["initial"]["drawn"].get<int>(), j["nodeCount"].get<int>());
}

}  // namespace
}  // namespace sonde::test
