// --threads SPEC → drain threads' CPUs, against a made-up sysfs topology
// (4 CPUs: cores {0,1} {2,3}, one package, NUMA nodes {0,1,2} {3}).
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "record/thread_spec.h"
#include "support/test_support.h"
#include "util/error.h"

using namespace sonde::record;
using sonde::test::TempDir;

namespace {

class ThreadSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* cores[] = {"0-1", "0-1", "2-3", "2-3"};
    for (int c = 0; c < 4; ++c) {
      std::string dir = sysfs_.path() + "/cpu/cpu" + std::to_string(c) + "/topology";
      ASSERT_EQ(::system(("mkdir -p '" + dir + "'").c_str()), 0);
      std::ofstream(dir + "/core_cpus_list") << cores[c] << "\n";
      std::ofstream(dir + "/package_cpus_list") << "0-3\n";
    }
    ASSERT_EQ(::system(("mkdir -p '" + sysfs_.path() + "/node/node0' '" + sysfs_.path() + "/node/node1'").c_str()), 0);
    std::ofstream(sysfs_.path() + "/node/node0/cpulist") << "0\n";
    std::ofstream(sysfs_.path() + "/node/node1/cpulist") << "1\n";
  }
  std::vector<std::vector<int>> groups(const std::string& spec, std::vector<int> recorded = {0, 1, 2, 3}) {
    std::vector<std::vector<int>> out;
    for (auto& t : parse_thread_spec(spec, recorded, sysfs_.path())) out.push_back(t.cpus);
    return out;
  }
  TempDir sysfs_;
};

using Groups = std::vector<std::vector<int>>;

TEST_F(ThreadSpec, NamedLayoutsGroupByTheTopology) {
  EXPECT_EQ(groups("cpu"), (Groups{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(groups("core"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(groups("package"), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(groups("core", {1, 3}), (Groups{{1}, {3}}));  // filtered through -C
  EXPECT_EQ(groups("numa", {0, 1}), (Groups{{0}, {1}}));
}

TEST_F(ThreadSpec, ANumberDealsTheCpusInContiguousRuns) {
  EXPECT_EQ(groups("2"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(groups("3"), (Groups{{0, 1}, {2}, {3}}));
  EXPECT_EQ(groups("9"), (Groups{{0}, {1}, {2}, {3}}));  // never more threads than CPUs
}

TEST_F(ThreadSpec, MasksNameEachThreadsCpusAndAffinity) {
  // Real CPU numbers are checked against the machine: use the online ones.
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  auto t = parse_thread_spec("0/1:1/0", {0, 1}, sysfs_.path());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].cpus, std::vector<int>{0});
  EXPECT_EQ(t[0].affinity, std::vector<int>{1});
  EXPECT_EQ(t[1].cpus, std::vector<int>{1});
  EXPECT_EQ(t[1].affinity, std::vector<int>{0});
  EXPECT_EQ(groups("0-1", {0, 1}), (Groups{{0, 1}}));
}

TEST_F(ThreadSpec, BadSpecsAreUsageErrors) {
  for (const char* bad : {"", "foo", "0:", ":0", "0/", "0:0", "0", "0-1/0:1/0", "1-0", "5000"}) {
    try {
      parse_thread_spec(bad, {0, 1}, sysfs_.path());
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const sonde::Error& e) {
      EXPECT_EQ(e.kind(), sonde::ErrorKind::Usage) << bad;
    }
  }
}

}  // namespace
