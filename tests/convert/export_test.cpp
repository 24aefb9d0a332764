// sonde convert, checked against the tools that read its output: go tool
// pprof (pprof), headless Chromium through Playwright (HTML), speedscope's
// own schema through ajv (speedscope), plus folded stacks and bad input.
//
// The recording is made once per run with Linux perf in pipe mode
// (`perf record -g --buildid-mmap -o - -- demo`, so build-ids are in the
// MMAP2 records) of sonde's demo workload (~2/3 compute_primes, ~1/3
// hash_strings and its libc callees). Expected percentages come from the
// Profile that build_profile makes of the same file.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cache/buildid_cache.h"
#include "format/stream_reader.h"
#include "analysis/profile_builder.h"
#include "support/test_support.h"
#include "symbol/symbolizer.h"

namespace sonde::test {
namespace {

namespace fs = std::filesystem;

const std::string kJsDir = SONDE_EXPORT_JS_DIR;
const std::string kArtifacts = SONDE_EXPORT_ARTIFACTS;

struct Expected {
  std::map<std::string, double> self_pct;   // by leaf function name (% of period)
  std::map<std::string, double> total_pct;  // by function name, once per stack
  std::map<std::string, uint64_t> self_period, self_count;
  uint64_t samples = 0, period = 0;
  std::string event;
  std::set<std::string> build_ids;
  bool cpu_nonzero = false;
};

class ExportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    recording_ = *dir_ / "demo.data";
    buildid_dir_ = *dir_ / "buildid-cache";
    fs::create_directories(buildid_dir_);
    RunResult r = sh("HOME=" + dir_->path() + " perf record -F 4000 -g --sample-cpu --buildid-mmap -o - -- " + demo_bin() + " 2 > " + recording_ + " 2> " +
                     *dir_ / "perf.err");
    record_ok_ = r.exit_code == 0 && fs::exists(recording_) && fs::file_size(recording_) > 1000;
    if (!record_ok_) {
      record_err_ = read_text(*dir_ / "perf.err");
      return;
    }
    expected_ = compute_expected(recording_);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(record_ok_) << "perf record failed:\n" << record_err_;
    ASSERT_GT(expected_.samples, 1000u);
  }

  static Expected compute_expected(const std::string& path) {
    SymbolizerOptions so;
    so.cache_root = buildid_dir_;
    Symbolizer sym(so);
    auto reader = format::open_recording(path);
    analysis::ProfileOptions po;
    auto p = analysis::build_profile(*reader, sym, po);
    Expected e;
    e.event = p.events.at(0).name;
    std::map<std::string, uint64_t> total;
    std::vector<uint32_t> locs;
    for (const auto& s : p.samples) {
      if (s.event != 0) continue;
      e.samples += s.count;
      e.cpu_nonzero |= s.cpu != 0;
      e.period += s.period;
      if (s.stack == UINT32_MAX) continue;
      p.stack_locations(s.stack, locs);
      const auto& leaf = p.functions[p.locations[locs[0]].function];
      std::string leaf_name(leaf.resolved ? p.str(leaf.name) : "[unknown]");
      e.self_period[leaf_name] += s.period;
      e.self_count[leaf_name] += s.count;
      std::set<std::string> seen;
      for (uint32_t l : locs) {
        const auto& fn = p.functions[p.locations[l].function];
        if (fn.resolved) seen.insert(std::string(p.str(fn.name)));
      }
      for (const auto& n : seen) total[n] += s.period;
    }
    for (const auto& [n, v] : e.self_period) e.self_pct[n] = 100.0 * double(v) / double(e.period);
    for (const auto& [n, v] : total) e.total_pct[n] = 100.0 * double(v) / double(e.period);
    for (const auto& m : p.mappings)
      if (m.build_id) e.build_ids.insert(std::string(p.str(m.build_id)));
    return e;
  }

  // The name of the demo's function matching a prefix (GCC may call it
  // compute_primes.constprop.0).
  static std::string hot(const std::string& prefix) {
    for (const auto& [n, v] : expected_.self_pct)
      if (n.rfind(prefix, 0) == 0) return n;
    return prefix;
  }

  static RunResult convert(const std::vector<std::string>& extra) {
    std::vector<std::string> argv{sonde_bin(), "convert", "-i", recording_, "--buildid-dir", buildid_dir_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv);
  }

  static std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  static void require_node() {
    ASSERT_TRUE(fs::exists(kJsDir + "/node_modules/playwright-core") && fs::exists(kJsDir + "/node_modules/ajv"))
        << kJsDir << "/node_modules is missing: run scripts/install-deps.sh (it runs npm ci there)";
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string recording_, buildid_dir_;
  static inline bool record_ok_ = false;
  static inline std::string record_err_;
  static inline Expected expected_;
};

// No stray temporary files next to an output.
size_t temp_files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (auto name = e.path().filename().string();
        name.find(".sonde-") != std::string::npos)  // util/atomic_file.h's hidden names
      ++n;
  return n;
}

TEST_F(ExportTest, DemoProfileHasTheKnownHotFunctions) {
  EXPECT_GT(expected_.self_pct[hot("compute_primes")], 30.0);
  // hash_strings' libc callees (snprintf, strlen) have no frame pointers, so
  // most of their samples do not unwind to it: it is hot, but not 1/3.
  EXPECT_GT(expected_.self_pct[hot("hash_strings")], 0.5);
}

TEST_F(ExportTest, PprofTopMatchesTheProfile) {
  std::string out = *dir_ / "demo.pb.gz";
  RunResult r = convert({"--to", "pprof", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // pprof's own reader: go tool pprof, flat% per function.
  RunResult top = run({"go", "tool", "pprof", "-top", "-nodecount=200", out});
  ASSERT_EQ(top.exit_code, 0) << top.err << top.out;
  std::map<std::string, double> flat;
  for (const auto& line : lines(top.out)) {
    std::istringstream ls(line);
    std::string f, fp, sp, c, cp;
    if (!(ls >> f >> fp >> sp >> c >> cp) || fp.empty() || !std::isdigit(static_cast<unsigned char>(fp[0])) || fp.back() != '%' || cp.back() != '%') continue;
    std::string name;
    std::getline(ls, name);
    name.erase(0, name.find_first_not_of(' '));
    flat[name] = std::stod(fp.substr(0, fp.size() - 1));
  }
  for (const std::string& fn : {hot("compute_primes"), hot("hash_strings")}) {
    ASSERT_TRUE(flat.count(fn)) << fn << " not in go tool pprof -top:\n" << top.out;
    EXPECT_NEAR(flat[fn], expected_.self_pct[fn], 0.1) << fn;
    std::printf("[pprof] %s: go tool pprof flat %.2f%%, profile self %.2f%%\n", fn.c_str(), flat[fn],
                expected_.self_pct[fn]);
  }
  EXPECT_NE(top.out.find("Type: cpu"), std::string::npos) << top.out;

  // When `sonde report` is built in, its --no-children table is the reference.
  RunResult rep = run({sonde_bin(), "report", "-i", recording_, "--no-children", "--format", "json", "--buildid-dir",
                       buildid_dir_});
  if (rep.exit_code == 0) {
    auto j = nlohmann::json::parse(rep.out);
    for (const auto& e : j["events"][0]["entries"]) {
      std::string sym = e.value("sym", "");
      if (flat.count(sym) && (sym == hot("compute_primes") || sym == hot("hash_strings"))) {
        EXPECT_NEAR(flat[sym], e["self"].get<double>(), 0.1) << sym;
        std::printf("[pprof] %s: sonde report --no-children %.2f%%\n", sym.c_str(), e["self"].get<double>());
      }
    }
  } else {
    std::printf("[pprof] sonde report not available in this build; compared with the Profile only\n");
  }

  // -raw: the sample types, labels and the build-ids in the mappings.
  RunResult raw = run({"go", "tool", "pprof", "-raw", out});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_NE(raw.out.find("samples/count cpu/nanoseconds"), std::string::npos) << raw.out.substr(0, 2000);
  ASSERT_FALSE(expected_.build_ids.empty());
  size_t mappings_at = raw.out.find("Mappings");
  ASSERT_NE(mappings_at, std::string::npos);
  std::string mappings = raw.out.substr(mappings_at);
  for (const auto& id : expected_.build_ids) EXPECT_NE(mappings.find(id), std::string::npos) << id << "\n" << mappings;
  EXPECT_NE(mappings.find("sonde-demo-workload"), std::string::npos);
  for (const char* label : {"pid:[", "tid:[", "comm:["}) EXPECT_NE(raw.out.find(label), std::string::npos) << label;
  // pprof's decoder drops numeric labels whose value is 0: cpu shows only
  // for samples taken on other CPUs.
  if (expected_.cpu_nonzero) {
    EXPECT_NE(raw.out.find("cpu:["), std::string::npos);
  }
}

TEST_F(ExportTest, FoldedCountsEverySample) {
  std::string out = *dir_ / "demo.folded";
  RunResult r = convert({"--to", "folded", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t total = 0;
  std::map<std::string, uint64_t> leaf;
  std::set<std::string> seen;
  for (const auto& line : lines(read_text(out))) {
    size_t sp = line.rfind(' ');
    ASSERT_NE(sp, std::string::npos) << line;
    std::string stack = line.substr(0, sp);
    EXPECT_TRUE(seen.insert(stack).second) << "duplicate stack " << stack;
    uint64_t n = std::stoull(line.substr(sp + 1));
    total += n;
    leaf[stack.substr(stack.rfind(';') == std::string::npos ? 0 : stack.rfind(';') + 1)] += n;
  }
  EXPECT_EQ(total, expected_.samples);
  EXPECT_EQ(leaf[hot("compute_primes")], expected_.self_count[hot("compute_primes")]);
  EXPECT_EQ(leaf[hot("hash_strings")], expected_.self_count[hot("hash_strings")]);

  // Prefix frames: COMM-PID first.
  RunResult p = convert({"--to", "folded", "--pid-frame", "-o", "-"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (const auto& line : lines(p.out)) EXPECT_EQ(line.rfind("sonde-demo-work-", 0), 0u) << line;
  RunResult c = convert({"--to", "folded", "--comm-frame", "-o", "-"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const auto& line : lines(c.out)) EXPECT_EQ(line.rfind("sonde-demo-work;", 0), 0u) << line;
}

TEST_F(ExportTest, FiltersApplyToEveryFormat) {
  // A pid that is not in the recording: nothing to convert, and no file.
  std::string out = *dir_ / "none.folded";
  RunResult r = convert({"--to", "folded", "--pid", "1", "-o", out});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no samples"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // The comm of the workload keeps everything; an empty time window keeps nothing.
  RunResult all = convert({"--to", "folded", "--comm", "sonde-demo-work", "-o", "-"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  uint64_t total = 0;
  for (const auto& line : lines(all.out)) total += std::stoull(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(total, expected_.samples);
  RunResult early = convert({"--to", "speedscope", "--time", "0,0.000001", "-o", *dir_ / "early.json"});
  EXPECT_EQ(early.exit_code, 1) << early.err;
  EXPECT_FALSE(fs::exists(*dir_ / "early.json"));
  // --time takes seconds as perf script prints them: cut between two samples.
  RunResult times = sh("HOME=" + dir_->path() + " perf script -F time --hide-call-graph -i " + recording_ + " 2>/dev/null");
  ASSERT_EQ(times.exit_code, 0);
  std::vector<uint64_t> us;
  for (auto line : lines(times.out)) {
    line.erase(0, line.find_first_not_of(' '));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    size_t dot = line.find('.');
    if (dot == std::string::npos || line.back() != ':') continue;
    us.push_back(std::stoull(line.substr(0, dot)) * 1000000 + std::stoull(line.substr(dot + 1, 6)));
  }
  std::sort(us.begin(), us.end());
  ASSERT_EQ(us.size(), expected_.samples);
  size_t k = us.size() / 3;
  while (k + 1 < us.size() && us[k + 1] - us[k] < 2) ++k;  // a gap of at least 2 us, so the cut is exact
  uint64_t cut = (us[k] + us[k + 1]) / 2;
  std::string end = fmt::format("{}.{:06}", cut / 1000000, cut % 1000000);
  RunResult part = convert({"--to", "folded", "--time", "," + end, "-o", "-"});
  ASSERT_EQ(part.exit_code, 0) << part.err;
  uint64_t kept = 0;
  for (const auto& line : lines(part.out)) kept += std::stoull(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(kept, k + 1) << "--time ," << end;
  RunResult rest = convert({"--to", "folded", "--time", end + ",", "-o", "-"});
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  kept = 0;
  for (const auto& line : lines(rest.out)) kept += std::stoull(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(kept, us.size() - k - 1) << "--time " << end << ",";
  RunResult ev = convert({"--to", "pprof", "--event", "no-such-event", "-o", *dir_ / "ev.pb.gz"});
  EXPECT_EQ(ev.exit_code, 1);
  EXPECT_FALSE(fs::exists(*dir_ / "ev.pb.gz"));
}

TEST_F(ExportTest, SpeedscopeValidatesAndRoundTrips) {
  require_node();
  std::string out = *dir_ / "demo.speedscope.json";
  RunResult r = convert({"--to", "speedscope", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult check = run({"node", kJsDir + "/speedscope_check.js", out});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  auto j = nlohmann::json::parse(check.out);
  ASSERT_TRUE(j["valid"].get<bool>()) << j["errors"].dump(2);
  EXPECT_GE(j["profiles"].get<int>(), 1);
  EXPECT_EQ(j["units"][0], "nanoseconds");
  EXPECT_EQ(j["total"].get<uint64_t>(), expected_.period);
  // Every resolved leaf name and its weight survive the round trip.
  for (const auto& [name, period] : expected_.self_period) {
    ASSERT_TRUE(j["self"].contains(name)) << name;
    EXPECT_EQ(j["self"][name].get<uint64_t>(), period) << name;
  }
}

TEST_F(ExportTest, HtmlFlameGraphInHeadlessChromium) {
  require_node();
  std::string out = *dir_ / "demo.html";
  RunResult r = convert({"--to", "html", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_text(out);
  // Self-contained: no external scripts, styles or fetches.
  for (const char* bad : {"<script src", "<link ", "http://", "https://", "fetch("})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;

  fs::create_directories(kArtifacts);
  std::string shot = kArtifacts + "/flamegraph";
  std::string compute = hot("compute_primes");
  RunResult b = run({"node", kJsDir + "/browser.js", out, shot, compute, "hash_strings"});
  ASSERT_EQ(b.exit_code, 0) << "the browser test could not run:\n" << b.err;
  auto j = nlohmann::json::parse(b.out);
  std::printf("[html] %s\n", b.out.c_str());
  EXPECT_TRUE(j["requests"].empty()) << j["requests"].dump();
  EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
  // The hot frame, with the profile's percentage.
  EXPECT_GE(j["hotBoxes"].get<int>(), 1);
  EXPECT_NEAR(j["hotPercent"].get<double>(), expected_.total_pct[compute], 0.1);
  EXPECT_NE(j["tooltip"].get<std::string>().find(compute), std::string::npos);
  EXPECT_NE(j["topHotText"].get<std::string>().find(fmt::format("{:.2f}%", expected_.self_pct[compute])),
            std::string::npos)
      << j["topHotText"];
  // Clicking zooms into it.
  EXPECT_EQ(j["zoomed"]["zoom"], compute);
  EXPECT_NEAR(j["zoomed"]["zoomPercent"].get<double>(), expected_.total_pct[compute], 0.1);
  EXPECT_NE(j["crumbs"].get<std::string>().find(compute), std::string::npos);
  // Search highlights the matches (after reset, the whole graph is visible).
  double hash_total = 0;
  for (const auto& [n, v] : expected_.total_pct)
    if (n.find("hash_strings") != std::string::npos) hash_total = std::max(hash_total, v);
  EXPECT_NEAR(j["searched"]["matchPercent"].get<double>(), hash_total, 0.1);
  EXPECT_NE(j["matchText"].get<std::string>().find("Matched:"), std::string::npos);
  EXPECT_GE(j["reset"]["highlightedDrawn"].get<int>(), 1);
  EXPECT_EQ(j["reset"]["zoom"], "all");
  EXPECT_TRUE(fs::exists(shot + ".png"));
}

TEST_F(ExportTest, PerfFileModeReadsInPerfReport) {
  std::string out = *dir_ / "demo.perf.data";
  RunResult r = convert({"--to", "perf", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every sample, as perf itself counts them.
  RunResult n = sh("HOME=" + dir_->path() + " perf script -F event -i " + out + " 2>/dev/null | wc -l");
  ASSERT_EQ(n.exit_code, 0);
  EXPECT_EQ(std::stoull(n.out), expected_.samples);
  // perf report's self percentage of the hot function matches the Profile.
  RunResult rep = sh("HOME=" + dir_->path() + " perf report -i " + out + " --no-children --stdio --sort sym 2>/dev/null");
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string compute = hot("compute_primes");
  bool found = false;
  for (const auto& line : lines(rep.out)) {
    if (line.empty() || line[0] == '#' || line.find("[.] " + compute) == std::string::npos) continue;
    double pct = std::stod(line);
    EXPECT_NEAR(pct, expected_.self_pct[compute], 0.1) << line;
    std::printf("[perf] perf report -i (sonde's file mode): %s %.2f%%, profile %.2f%%\n", compute.c_str(), pct,
                expected_.self_pct[compute]);
    found = true;
    break;
  }
  EXPECT_TRUE(found) << rep.out.substr(0, 3000);
  // Filters drop samples; nothing left means no file.
  RunResult none = convert({"--to", "perf", "--pid", "1", "-o", *dir_ / "none.perf.data"});
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_FALSE(fs::exists(*dir_ / "none.perf.data"));
  EXPECT_EQ(temp_files_in(dir_->path()), 0u);
}

// ---- Bad input and arguments -------------------------------------------------

class ConvertErrors : public ::testing::Test {
 protected:
  TempDir dir;
  RunResult convert_to(const std::string& input, const std::string& format, const std::string& out) {
    return run({sonde_bin(), "convert", "-i", input, "--to", format, "-o", out, "--buildid-dir", dir / "cache"});
  }
  static size_t line_count(const std::string& s) { return lines(s).size(); }
};

TEST_F(ConvertErrors, UnknownFormatIsAUsageErrorBeforeReading) {
  std::string out = dir / "out.bin";
  // The input does not exist: the format is still the first complaint.
  RunResult r = convert_to(dir / "missing.data", "flamechart", out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("unknown format 'flamechart'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  RunResult t = run({sonde_bin(), "convert", "-i", dir / "missing.data", "--to", "pprof", "--time", "abc", "-o", out});
  EXPECT_EQ(t.exit_code, 2) << t.err;
  EXPECT_EQ(line_count(t.err), 1u) << t.err;
  RunResult noout = run({sonde_bin(), "convert", "-i", dir / "missing.data", "--to", "pprof"});
  EXPECT_EQ(noout.exit_code, 2) << noout.err;
  EXPECT_EQ(temp_files_in(dir.path()), 0u);
}

TEST_F(ConvertErrors, JitMapsOutsideToPerfIsAUsageError) {
  std::string out = dir / "out.pb.gz";
  RunResult r = run({sonde_bin(), "convert", "-i", dir / "missing.data", "--to", "pprof", "-o", out, "--jit-maps", dir / "maps"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sonde: convert: --jit-maps applies to --to perf only\n");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir / "maps"));
}

TEST_F(ConvertErrors, WrongMagicIsAClearErrorWithoutOutput) {
  std::string in = dir / "bad.data", out = dir / "out.pb.gz";
  std::ofstream(in) << "NOTPERF!this is not a perf.data file at all, just some text that is long enough";
  RunResult r = convert_to(in, "pprof", out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(temp_files_in(dir.path()), 0u);
}

TEST_F(ConvertErrors, TruncatedRecordingsNeverLeaveAPartialFile) {
  std::string full = dir / "full.data";
  RunResult rec = sh("HOME=" + dir.path() + " perf record -g -o - -- " + demo_bin() + " 0.3 > " + full);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto size = fs::file_size(full);
  // Cut inside the header: nothing readable.
  fs::copy_file(full, dir / "head.data");
  fs::resize_file(dir / "head.data", 20);
  RunResult h = convert_to(dir / "head.data", "html", dir / "head.html");
  EXPECT_EQ(h.exit_code, 1) << h.err;
  EXPECT_EQ(line_count(h.err), 1u) << h.err;
  EXPECT_FALSE(fs::exists(dir / "head.html"));
  // Cut mid-way: what was recorded converts, with a warning about the tail.
  fs::copy_file(full, dir / "half.data");
  fs::resize_file(dir / "half.data", size / 2 + 3);
  RunResult m = convert_to(dir / "half.data", "folded", dir / "half.folded");
  if (m.exit_code == 0) {
    EXPECT_NE(m.err.find("incomplete record"), std::string::npos) << m.err;
    EXPECT_TRUE(fs::exists(dir / "half.folded"));
  } else {
    EXPECT_EQ(m.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir / "half.folded"));
  }
  // A file-mode perf.data cut short (its sections point past the end).
  std::string file_mode = dir / "file.data";
  // HOME and -B: perf must not add to the user's ~/.debug (and perf 6.1's
  // -N sometimes aborts in util/build-id.c).
  RunResult fr = sh("HOME=" + dir.path() + " perf record -B -g -o " + file_mode + " -- " + demo_bin() + " 0.3 2>&1");
  ASSERT_EQ(fr.exit_code, 0) << fr.out;
  fs::resize_file(file_mode, fs::file_size(file_mode) / 2);
  RunResult f = convert_to(file_mode, "speedscope", dir / "file.json");
  if (f.exit_code != 0) {
    EXPECT_EQ(f.exit_code, 1);
    EXPECT_EQ(line_count(f.err), 1u) << f.err;
    EXPECT_FALSE(fs::exists(dir / "file.json"));
  }
  // A section pointing past the end: the header's data.offset (byte 40).
  fr = sh("HOME=" + dir.path() + " perf record -B -g -o " + file_mode + " -- " + demo_bin() + " 0.2 2>&1");
  ASSERT_EQ(fr.exit_code, 0) << fr.out;
  {
    std::fstream patch(file_mode, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t far = uint64_t(1) << 40;
    patch.seekp(40);
    patch.write(reinterpret_cast<const char*>(&far), sizeof far);
  }
  for (const char* format : {"pprof", "html", "perf"}) {
    RunResult c = convert_to(file_mode, format, dir / "corrupt.out");
    EXPECT_EQ(c.exit_code, 1) << format << ": " << c.err;
    EXPECT_EQ(line_count(c.err), 1u) << c.err;
    EXPECT_NE(c.err.find("past the end"), std::string::npos) << c.err;
    EXPECT_FALSE(fs::exists(dir / "corrupt.out")) << format;
  }
  EXPECT_EQ(temp_files_in(dir.path()), 0u);
}

TEST_F(ConvertErrors, PerfFormatNeedsAFile) {
  RunResult r = convert_to(dir / "missing.data", "perf", "-");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
}

}  // namespace
}  // namespace sonde::test
