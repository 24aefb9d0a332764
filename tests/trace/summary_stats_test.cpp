// The summary's arithmetic: the BPF program's per-CPU sums (count, total,
// 128-bit sum of squares) become the same mean and m2 as perf's running
// Welford update, and --summary-mode=total's merge of threads gives the
// statistics of all their calls together.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernel/cgroup_paths.h"
#include "trace/syscall_summary.h"
#include "trace/trace_summary.h"

namespace sonde::trace {
namespace {

// The statistics of `durations` straight from their definition.
CallStats direct(const std::vector<uint64_t>& durations) {
  CallStats c;
  for (uint64_t d : durations) {
    c.calls += 1;
    c.total_ns += d;
    c.min_ns = std::min(c.min_ns, d);
    c.max_ns = std::max(c.max_ns, d);
  }
  c.mean = static_cast<double>(c.total_ns) / static_cast<double>(c.calls);
  for (uint64_t d : durations) c.m2 += (static_cast<double>(d) - c.mean) * (static_cast<double>(d) - c.mean);
  return c;
}

// One CPU's share as the BPF program keeps it (add_square's 128-bit sum).
sonde_summary_stats share(const std::vector<uint64_t>& durations, uint64_t last_ns, const char* comm) {
  sonde_summary_stats s{};
  for (uint64_t d : durations) {
    s.min_ns = s.calls == 0 ? d : std::min<uint64_t>(s.min_ns, d);
    s.calls += 1;
    s.total_ns += d;
    s.max_ns = std::max<uint64_t>(s.max_ns, d);
    sonde_summary_add_square(reinterpret_cast<__u64*>(&s.squares_hi), reinterpret_cast<__u64*>(&s.squares_lo), d);
  }
  s.last_ns = last_ns;
  std::strncpy(s.comm, comm, sizeof s.comm - 1);
  return s;
}

void expect_same(const CallStats& got, const CallStats& want) {
  EXPECT_EQ(got.calls, want.calls);
  EXPECT_EQ(got.total_ns, want.total_ns);
  EXPECT_EQ(got.min_ns, want.min_ns);
  EXPECT_EQ(got.max_ns, want.max_ns);
  EXPECT_NEAR(got.mean, want.mean, 1e-9 * want.mean);
  EXPECT_NEAR(got.m2, want.m2, 1e-9 * want.m2 + 1e-6);
}

TEST(SummaryStats, CpuSharesAddUpToTheCallsStatistics) {
  std::vector<uint64_t> cpu0 = {1200, 800, 950}, cpu1 = {30000, 15};
  std::string comm;
  uint64_t newest = 0;
  CallStats c = merge_cpu_shares({share(cpu0, 5, "before-exec"), share(cpu1, 9, "after-exec"), sonde_summary_stats{}},
                                 comm, newest);
  std::vector<uint64_t> all = cpu0;
  all.insert(all.end(), cpu1.begin(), cpu1.end());
  expect_same(c, direct(all));
  EXPECT_EQ(comm, "after-exec") << "the newest share names the thread";
  EXPECT_EQ(newest, 9u);
  // Another syscall of the same thread, last made before: the name stays.
  merge_cpu_shares({share({70}, 7, "before-exec")}, comm, newest);
  EXPECT_EQ(comm, "after-exec");
  EXPECT_EQ(newest, 9u);
}

TEST(SummaryStats, LongCallsOverflowNoSquare) {
  // 10 s and 20 s calls: their squares (1e20, 4e20 ns²) do not fit 64 bits.
  std::vector<uint64_t> calls = {10'000'000'000ULL, 20'000'000'000ULL, 15'000'000'000ULL};
  std::string comm;
  uint64_t newest = 0;
  sonde_summary_stats s = share(calls, 1, "sleeper");
  ASSERT_GT(s.squares_hi, 0u);
  expect_same(merge_cpu_shares({s}, comm, newest), direct(calls));
}

// The program's 128-bit sum of squares against the compiler's 128-bit integers.
TEST(SummaryStats, SumOfSquaresIsExactTo128Bits) {
  const uint64_t samples[] = {0, 1, 0xffffffffULL, 0x100000000ULL, 0x123456789abcdefULL, ~0ULL, 86'400'000'000'000ULL};
  __u64 hi = 0, lo = 0;
  unsigned __int128 want = 0;
  for (uint64_t d : samples) {
    sonde_summary_add_square(&hi, &lo, d);
    want += static_cast<unsigned __int128>(d) * d;
    EXPECT_EQ(lo, static_cast<uint64_t>(want)) << d;
    EXPECT_EQ(hi, static_cast<uint64_t>(want >> 64)) << d;
  }
}

TEST(SummaryStats, TotalModeMergesThreadsAsOneSetOfCalls) {
  std::vector<uint64_t> a = {100, 300, 700}, b = {5000, 4000}, c = {42};
  ThreadStats ta, tb, tc;
  ta.calls[1] = direct(a), ta.events = 6;
  tb.calls[1] = direct(b), tb.calls[3] = direct(c), tb.events = 6;
  ThreadStats total = total_of({&ta, &tb, &tc});
  std::vector<uint64_t> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  expect_same(total.calls[1], direct(ab));
  expect_same(total.calls[3], direct(c));
  EXPECT_EQ(total.events, 12u);
  std::string text = format_total_summary(total);
  EXPECT_NE(text.find("\n Summary of events:\n\n total, 12 events\n\n   syscall  "), std::string::npos) << text;
}

TEST(CgroupPaths, TheCgroup2MountFromMountinfo) {
  const char* text =
      "25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
      "26 25 0:23 / /sys/fs/cgroup/cpu rw shared:7 - cgroup cgroup rw,cpu\n"
      "33 25 0:30 / /sys/fs/cgroup/my\\040unified rw,relatime shared:9 - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(kernel::cgroup2_mount(text), "/sys/fs/cgroup/my unified");
  EXPECT_EQ(kernel::cgroup2_mount("26 25 0:23 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"), "");
  EXPECT_EQ(kernel::cgroup2_mount("garbage\n - cgroup2\n"), "") << "a line without its fields";
}

TEST(CgroupPaths, IdsAreTheDirectoriesInodes) {
  char dir[] = "/tmp/sonde-cgpaths-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string root = dir, child = root + "/a", grandchild = child + "/b c";
  ASSERT_EQ(::mkdir(child.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(grandchild.c_str(), 0755), 0);
  struct stat r{}, c{}, g{};
  ::stat(root.c_str(), &r), ::stat(child.c_str(), &c), ::stat(grandchild.c_str(), &g);
  auto paths = kernel::cgroup_paths(root);
  EXPECT_EQ(paths[r.st_ino], "/");
  EXPECT_EQ(paths[c.st_ino], "/a");
  EXPECT_EQ(paths[g.st_ino], "/a/b c");
  EXPECT_EQ(paths.size(), 3u);
  ::rmdir(grandchild.c_str()), ::rmdir(child.c_str()), ::rmdir(root.c_str());
}

}  // namespace
}  // namespace sonde::trace
