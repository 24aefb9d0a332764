// sonde list against perf list on this machine: the same software events
// and tracepoints, hardware events marked as the kernel answers, and the
// SDT probes of the probe cache.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <regex>
#include <set>

#include "format/uapi/perf_event.h"
#include "kernel/perf_event.h"
#include "support/test_support.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*

namespace {

// "  NAME [KIND]..." lines of a listing, for one kind.
std::vector<std::string> names_of(const std::string& listing, const std::string& kind) {
  std::vector<std::string> out;
  static const std::regex line(R"(^  (.+?) +\[([A-Za-z ]+)\].*$)");
  for (const auto& l : lines(listing)) {
    std::smatch m;
    if (std::regex_match(l, m, line) && m[2] == kind) out.push_back(m[1]);
  }
  return out;
}

}  // namespace

TEST(List, SoftwareEventsAndTracepointsAreThoseOfPerfList) {
  auto ours = run({sonde_bin(), "list"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto perf = sh("perf list 2>/dev/null");
  EXPECT_EQ(names_of(ours.out, "Software event"), names_of(perf.out, "Software event"));
  auto tp = names_of(ours.out, "Tracepoint event");
  EXPECT_GT(tp.size(), 100u);
  EXPECT_EQ(tp, names_of(perf.out, "Tracepoint event"));
  // A pattern selects the same way in both.
  auto sched = run({sonde_bin(), "list", "sched:sched_process_*"});
  auto perf_sched = sh("perf list 'sched:sched_process_*' 2>/dev/null");
  EXPECT_EQ(names_of(sched.out, "Tracepoint event"), names_of(perf_sched.out, "Tracepoint event"));
  EXPECT_GE(names_of(sched.out, "Tracepoint event").size(), 4u) << sched.out;
  // Every software event listed is one `sonde record -e` takes.
  TempDir dir;
  for (const auto& group : names_of(ours.out, "Software event")) {
    std::string first = group.substr(0, group.find(' '));
    auto r = run({sonde_bin(), "record", "-q", "-N", "-e", first, "-o", dir / "e.data", "--", "true"});
    EXPECT_EQ(r.exit_code, 0) << first << ": " << r.err;
  }
}

TEST(List, HardwareEventsSayWhetherThisMachineHasThem) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = sonde::kernel::perf_event_open_sized(a, 0, -1, -1, 0);
  bool have_pmu = fd >= 0;
  if (fd >= 0) close(fd);
  auto r = run({sonde_bin(), "list", "cycles"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(lines(r.out).size(), 1u) << r.out;
  EXPECT_NE(r.out.find("cycles OR cpu-cycles"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not supported here: no hardware PMU") != std::string::npos, !have_pmu) << r.out;
}

TEST(List, SdtProbesOfTheProbeCacheAreListedWithTheirBinary) {
  TempDir dir;
  std::string bin = dir / "forms";
  ASSERT_TRUE(compile_fixture("sdt_forms.c", bin, "-O2"));
  std::string env = "SONDE_BUILDID_DIR=" + (dir / "cache") + " ";
  auto empty = sh(env + sonde_bin() + " list '%sfix:*'");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");  // nothing cached yet, nothing listed
  ASSERT_EQ(sh(env + sonde_bin() + " sdt add " + bin).exit_code, 0);
  auto listed = sh(env + sonde_bin() + " list '%sfix:*'");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  // The names readelf sees in the binary's notes.
  auto notes = sh("readelf -n " + bin + " | sed -n 's/.*Name: //p' | sort -u").out;
  std::set<std::string> want;
  for (const auto& n : lines(notes))
    if (!n.empty()) want.insert("%sfix:" + n);
  std::set<std::string> got;
  for (const auto& l : lines(listed.out)) {
    EXPECT_NE(l.find("[SDT event] (" + bin + ")"), std::string::npos) << l;
    if (!l.empty()) got.insert(l.substr(2, l.find(' ', 2) - 2));
  }
  EXPECT_EQ(got, want);
}

// perf list's event-type words and --details (which adds nothing to the
// events either tool lists here: no PMU event encodings, no metrics).
TEST(ListCategories, KindsAndDetailsAsPerf) {
  auto software = [](const std::string& text) {
    std::string out;
    for (const auto& l : lines(text))
      if (l.find("[Software event]") != std::string::npos) out += l + "\n";
    return out;
  };
  auto ours = run({sonde_bin(), "list", "sw"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, software(ours.out)) << "sw lists software events only";
  EXPECT_EQ(ours.out, software(sh("perf list sw 2>/dev/null").out));
  auto tracepoints = run({sonde_bin(), "list", "--details", "tracepoint"});
  ASSERT_EQ(tracepoints.exit_code, 0) << tracepoints.err;
  EXPECT_GT(lines(tracepoints.out).size(), 100u);
  EXPECT_EQ(first_difference(tracepoints.out, sh("perf list --details tracepoint 2>/dev/null").out), "");
  EXPECT_EQ(run({sonde_bin(), "list", "-d", "cs"}).out, run({sonde_bin(), "list", "cs"}).out);
  // A kind and a glob: both, as perf prints each word's events.
  auto mixed = run({sonde_bin(), "list", "sw", "sched:sched_switch"});
  EXPECT_EQ(mixed.out, ours.out + "  sched:sched_switch                                 [Tracepoint event]\n");
}
