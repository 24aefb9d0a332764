// The machine facts sonde writes in its header features, read back by perf:
// HEADER_CPU_TOPOLOGY equals what perf writes for its own recording on the
// same machine, and the readers' --sort socket,core use it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

#include "record/record_test_util.h"

using namespace sonde::test;

namespace {

// perf report --header-only -I's topology lines ("# sibling ...", "# CPU N: ...").
std::vector<std::string> topology_lines(const std::string& data) {
  auto r = run({"perf", "report", "--header-only", "-I", "-i", data});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out;
  for (const auto& l : lines(r.out))
    if (l.starts_with("# sibling ") || (l.starts_with("# CPU ") && l.size() > 6 && std::isdigit(l[6]))) out.push_back(l);
  return out;
}

TEST(RecordHeader, CpuTopologyIsWhatPerfWritesOnThisMachine) {
  TempDir dir;
  const std::string ours = dir / "sonde.data", theirs = dir / "perf.data";
  auto s = run({sonde_bin(), "record", "-q", "-o", ours, "--", "true"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  auto p = run({"perf", "record", "-q", "-o", theirs, "--", "true"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto want = topology_lines(theirs);
  ASSERT_FALSE(want.empty()) << "perf wrote no CPU topology";
  EXPECT_EQ(topology_lines(ours), want);
}

// Without the feature sonde refused --sort socket; with it, every row has
// the socket of /sys's physical_package_id for its CPU (0 on one package).
TEST(RecordHeader, SortBySocketAndCoreReadsTheTopology) {
  TempDir dir;
  std::string hot_loop = dir / "hot_loop", data = dir / "sonde.data";
  ASSERT_TRUE(compile_fixture("hot_loop.c", hot_loop));
  auto s = run({sonde_bin(), "record", "-q", "-o", data, "--", hot_loop, "0.2"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  auto r = run({sonde_bin(), "report", "-i", data, "--no-children", "--sort", "socket,core", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(lines(r.out).empty());
  const int package = std::stoi(slurp("/sys/devices/system/cpu/cpu0/topology/physical_package_id"));
  size_t rows = 0;
  for (const auto& l : lines(r.out)) {
    std::istringstream fields(l);
    std::string overhead, socket, core;
    if (!(fields >> overhead >> socket >> core)) continue;
    ++rows;
    EXPECT_EQ(socket, fmt::format("{:03}", package)) << l;
  }
  EXPECT_GT(rows, 0u) << r.out;
}

}  // namespace
