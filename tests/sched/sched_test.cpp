// sonde sched against the real kernel and perf sched (6.1): two CPU-bound
// loops pinned to one CPU wait for each other; sched latency must show
// them, and print what perf sched latency prints for the same file, for
// sonde's recording and perf's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace sonde::test {
namespace {

class Sched : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("sched_spin.c", bin(), "-O1"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string bin() { return *dir_ / "sched_spin"; }
  static std::string workload() {
    return "taskset -c 0 " + bin() + " 100000000 & taskset -c 0 " + bin() + " 100000000 & wait";
  }
  static TempDir* dir_;
};
TempDir* Sched::dir_ = nullptr;

// The lines of a view that mention the fixture, and its header lines.
// Tasks forked while recording (other sessions' builds run beside the
// tests) can be named differently where perf's thread table replaces a
// thread at its FORK (docs/trace.md); the fixture's own lines must be equal.
std::string fixture_lines(const std::string& text) {
  std::string out;
  size_t n = 0;
  for (const auto& l : lines(text))
    if (n++ < 3 || l.find("sched_spin") != std::string::npos) out += l + "\n";
  return out;
}

// The same view of one file by sonde and perf, line for line (`whole`), or
// the fixture's lines.
void expect_same_view(const std::string& data, const std::vector<std::string>& view, bool whole = false) {
  std::vector<std::string> ours_argv{sonde_bin(), "sched"}, perf_argv{"perf", "sched"};
  ours_argv.insert(ours_argv.end(), view.begin(), view.end());
  perf_argv.insert(perf_argv.end(), view.begin(), view.end());
  ours_argv.insert(ours_argv.end(), {"-i", data});
  perf_argv.insert(perf_argv.end(), {"-i", data});
  auto ours = run(ours_argv);
  auto perf = run(perf_argv);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  const std::string a = whole ? ours.out : fixture_lines(ours.out), b = whole ? perf.out : fixture_lines(perf.out);
  EXPECT_EQ(first_difference(a, b), "") << view[0] << (view.size() > 1 ? " " + view[1] : "");
  EXPECT_NE(a.find("sched_spin"), std::string::npos) << ours.out;
}

// Sorted lines: perf's summary lists a few exited tasks among the live ones
// (docs/trace.md), so the -s tables are compared as sets of rows.
std::string sorted_lines(const std::string& text) {
  auto v = lines(text);
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& l : v) out += l + "\n";
  return out;
}

// Both loops appear (one row: perf merges tasks of one name), and every
// view prints what perf sched prints of the same file.
void expect_views_match_perf(const std::string& data) {
  auto latency = run({sonde_bin(), "sched", "latency", "-i", data});
  // Both loops (at least: a sched_spin still ending from the test before can
  // be in the system-wide recording too; perf counts it the same way).
  std::smatch merged;
  ASSERT_TRUE(std::regex_search(latency.out, merged, std::regex(R"(  sched_spin:\((\d+)\) )"))) << latency.out;
  EXPECT_GE(std::stoi(merged[1]), 2) << latency.out;
  expect_same_view(data, {"latency"}, true);
  expect_same_view(data, {"timehist"});
  expect_same_view(data, {"timehist", "-w"});
  expect_same_view(data, {"timehist", "--state"});
  expect_same_view(data, {"map"});
  auto ours = run({sonde_bin(), "sched", "timehist", "-s", "-i", data});
  auto perf = run({"perf", "sched", "timehist", "-s", "-i", data});
  EXPECT_EQ(first_difference(sorted_lines(fixture_lines(ours.out)), sorted_lines(fixture_lines(perf.out))), "");
  EXPECT_NE(ours.out.find("sched_spin["), std::string::npos) << ours.out;
}

TEST_F(Sched, ViewsOfSondesRecordingAsPerfShowsThem) {
  auto data = *dir_ / "sonde.sched";
  auto r = run({sonde_bin(), "sched", "record", "-o", data, "--", "sh", "-c", workload()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_views_match_perf(data);
}

TEST_F(Sched, ViewsOfPerfsRecordingAsPerfShowsThem) {
  auto data = *dir_ / "perf.sched";
  auto r = run({"perf", "sched", "record", "-o", data, "--", "sh", "-c", workload()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_views_match_perf(data);
}

TEST_F(Sched, ScriptIsSondeScript) {
  auto data = *dir_ / "script.sched";
  ASSERT_EQ(run({sonde_bin(), "sched", "record", "-o", data, "--", bin(), "1000000"}).exit_code, 0);
  auto a = run({sonde_bin(), "sched", "script", "-i", data});
  auto b = run({sonde_bin(), "script", "-i", data});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("sched:sched_switch:"), std::string::npos);
}

// The page's data: the JSON inside its <script type="application/json">
// element ("<\/" is JSON's own escape of "</").
nlohmann::json page_data(const std::string& html) {
  const std::string open = "type=\"application/json\" id=\"sonde-data\">";
  size_t at = html.find(open);
  if (at == std::string::npos) return {};
  at += open.size();
  return nlohmann::json::parse(html.substr(at, html.find("</script>", at) - at));
}

// sonde's off-CPU samples, the page's timeline and sched timehist measure the
// same intervals: a thread that sleeps 20 x 5 ms, recorded system-wide with
// the scheduler tracepoints and --off-cpu in one file. Every wait timehist
// reports for the thread is one of its off-CPU samples (to 5 µs: timehist
// prints microseconds, and each stamps the same switch itself), and the
// page's off-CPU intervals are those samples exactly. (The thread's last
// switch-out, at its exit, can come after the recording stopped: timehist
// then lacks the last interval, which the off-CPU sample, stamped at the
// switch-in, has.)
TEST_F(Sched, OffCpuTimeAndThePagesTimelineAreTimehistsWaitTime) {
  const std::string naps = *dir_ / "sched_naps", data = *dir_ / "naps.data", page = *dir_ / "naps.html";
  ASSERT_TRUE(compile_fixture("sched_naps.c", naps, "-O1"));
  auto r = run({sonde_bin(), "record", "-q", "-a", "--off-cpu", "--off-cpu-thresh", "0", "-e",
                "sched:sched_switch,sched:sched_wakeup,sched:sched_stat_runtime", "-o", data, "--", naps});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // timehist: "TIME [CPU] sched_naps[TID]  WAIT  SCH-DELAY  RUN" per switch of the fixture.
  auto th = run({sonde_bin(), "sched", "timehist", "-i", data});
  ASSERT_EQ(th.exit_code, 0) << th.err;
  std::regex row(R"(^ +[0-9.]+ \[[0-9]+\] +sched_naps\[([0-9]+)\] +([0-9.]+) +([0-9.]+) +([0-9.]+) *$)");
  std::vector<double> waits_ms;
  std::string tid;
  for (const auto& l : lines(th.out)) {
    std::smatch m;
    if (!std::regex_match(l, m, row)) continue;
    tid = m[1];
    // The sleeps: each at least 5 ms (the kernel's promise). Shorter waits
    // are preemptions, which a loaded machine adds and the test leaves out.
    if (std::stod(m[2]) >= 5.0) waits_ms.push_back(std::stod(m[2]));
  }
  ASSERT_GE(waits_ms.size(), 19u) << th.out;
  // The thread's off-CPU samples (blocked and runnable), in ns.
  auto sc = run({sonde_bin(), "script", "-i", data, "-F", "tid,event,period"});
  ASSERT_EQ(sc.exit_code, 0) << sc.err;
  std::multiset<uint64_t> offcpu_ns;
  for (const auto& l : lines(sc.out)) {
    std::istringstream f(l);
    std::string t, period, event;
    f >> t >> period >> event;
    if (t == tid && event.starts_with("offcpu-time")) offcpu_ns.insert(std::stoull(period));
  }
  // Shortest first, each to the shortest sample within 5 µs: a greedy match
  // that cannot leave a wait unmatched when some pairing matches it.
  std::sort(waits_ms.begin(), waits_ms.end());
  std::multiset<uint64_t> unmatched = offcpu_ns;
  std::string missing;
  for (double w : waits_ms) {
    auto near = unmatched.lower_bound(static_cast<uint64_t>((w - 0.005) * 1e6));
    if (near != unmatched.end() && static_cast<double>(*near) <= (w + 0.005) * 1e6) unmatched.erase(near);
    else missing += fmt::format(" {:.3f}", w);
  }
  EXPECT_EQ(missing, "") << "timehist waits (ms) with no off-CPU sample of that length";
  // The page's timeline: its off-CPU intervals (end, length, thread, event) of that thread.
  auto c = run({sonde_bin(), "convert", "-i", data, "--to", "html", "-o", page});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::ifstream in(page);
  std::stringstream html;
  html << in.rdbuf();
  nlohmann::json d = page_data(html.str());
  ASSERT_TRUE(d.contains("threads") && d.contains("offcpu")) << "no page data";
  int64_t thread = -1;
  for (size_t i = 0; i < d["threads"].size(); ++i)
    if (std::to_string(d["threads"][i][1].get<int64_t>()) == tid) thread = int64_t(i);
  ASSERT_GE(thread, 0) << d["threads"].dump();
  std::multiset<uint64_t> page_ns;
  const auto& spans = d["offcpu"];
  for (size_t i = 0; i + 3 < spans.size(); i += 4)
    if (spans[i + 2].get<int64_t>() == thread) page_ns.insert(spans[i + 1].get<uint64_t>());
  EXPECT_EQ(page_ns, offcpu_ns) << "the page's intervals are the off-CPU samples";
}

}  // namespace
}  // namespace sonde::test
