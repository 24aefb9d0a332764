// sonde sdt latency: pairs of probe hits matched per thread or by argument,
// from a fixture whose intervals last at least 1 ms (a sleep) and that fires
// one end without a begin and one begin without an end.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>

#include "support/stream_split.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

// The histogram's "[LOW, HIGH)  COUNT |" lines: label -> count.
std::map<std::string, uint64_t> buckets(const std::string& out) {
  std::map<std::string, uint64_t> b;
  static const std::regex line(R"(^ +(\[[^\]\)]+[\]\)]|\(\.\.\., 0\)) +(\d+) \|.*\|$)");
  for (const auto& l : lines(out)) {
    std::smatch m;
    if (std::regex_match(l, m, line)) b[m[1]] = std::stoull(m[2]);
  }
  return b;
}

}  // namespace

TEST(SdtLatency, PairsPerThreadAndByArgumentWithTheirUnmatchedHits) {
  TempDir dir;
  std::string bin = dir / "pairs", data = dir / "pairs.data";
  ASSERT_TRUE(compile_fixture("sdt_pairs.c", bin, "-O2 -lpthread"));
  auto r = sh(sonde_bin() + " record -q -N -e '%pairs:*' -o " + data + " -- " + bin + " 20");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"tid", "arg1"}) {
    auto l = run({sonde_bin(), "sdt", "latency", "-i", data, "--key", key, "%pairs:begin", "%pairs:end"});
    ASSERT_EQ(l.exit_code, 0) << l.err;
    EXPECT_EQ(lines(l.out)[0], std::string("%pairs:begin -> %pairs:end, by ") + key +
                                   ": 40 pairs, 1 end without a begin, 1 begin without an end")
        << l.out;
    // Every interval slept 1 ms: nothing below [1M, 2M) nanoseconds.
    auto b = buckets(l.out);
    uint64_t total = 0;
    for (const auto& [label, n] : b) {
      total += n;
      EXPECT_TRUE(label.find('M') != std::string::npos || label.find('G') != std::string::npos) << label;
    }
    EXPECT_EQ(total, 40u) << l.out;
    EXPECT_NE(l.out.find("  min 1"), std::string::npos) << l.out;
  }
}

TEST(SdtLatency, BadNamesAndKeysAreUsageErrorsAndAMissingProbeIsNamed) {
  TempDir dir;
  std::string bin = dir / "pairs", data = dir / "pairs.data";
  ASSERT_TRUE(compile_fixture("sdt_pairs.c", bin, "-O2 -lpthread"));
  ASSERT_EQ(sh(sonde_bin() + " record -q -N -e '%pairs:*' -o " + data + " -- " + bin + " 2").exit_code, 0);
  auto typo = run({sonde_bin(), "sdt", "latency", "-i", data, "%pairs:begin", "%pairs:ned"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_EQ(typo.err, "sonde: sdt latency: no hit of %pairs:ned in " + data +
                          " (probes recorded: %pairs:begin, %pairs:end)\n");
  EXPECT_EQ(typo.out, "");
  auto key = run({sonde_bin(), "sdt", "latency", "-i", data, "--key", "arg0", "%pairs:begin", "%pairs:end"});
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_EQ(key.err, "sonde: invalid --key 'arg0' (tid, or arg1..arg12)\n");
  auto same = run({sonde_bin(), "sdt", "latency", "-i", data, "%pairs:end", "%pairs:end"});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_EQ(same.err, "sonde: sdt latency: BEGIN and END are the same probe (%pairs:end)\n");
  auto name = run({sonde_bin(), "sdt", "latency", "-i", data, "pairs:begin", "%pairs:end"});
  EXPECT_EQ(name.exit_code, 2);
  EXPECT_NE(name.err.find("is not a probe name"), std::string::npos) << name.err;
}

// A directory of streams (docs/format.md, "Directory recordings"), its probe
// hits dealt to two files in turn: the same pairs, unmatched hits and
// statistics as the one stream it was split from.
TEST(SdtLatency, ADirectoryOfStreamsGivesTheOneStreamsPairsAndStats) {
  TempDir dir;
  std::string bin = dir / "pairs", data = dir / "pairs.data", split = dir / "pairs.dir";
  ASSERT_TRUE(compile_fixture("sdt_pairs.c", bin, "-O2 -lpthread"));
  ASSERT_EQ(sh(sonde_bin() + " record -q -N -e '%pairs:*' -o " + data + " -- " + bin + " 20").exit_code, 0);
  std::filesystem::create_directory(split);
  split_into_directory(data, split, 2, SplitBy::kTurn);
  for (const char* key : {"tid", "arg1"}) {
    auto one = run({sonde_bin(), "sdt", "latency", "-i", data, "--key", key, "%pairs:begin", "%pairs:end"});
    auto d = run({sonde_bin(), "sdt", "latency", "-i", split, "--key", key, "%pairs:begin", "%pairs:end"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(d.out, one.out);
    EXPECT_EQ(lines(d.out)[0], std::string("%pairs:begin -> %pairs:end, by ") + key +
                                   ": 40 pairs, 1 end without a begin, 1 begin without an end");
  }
  auto one = run({sonde_bin(), "sdt", "stats", "-i", data});
  auto d = run({sonde_bin(), "sdt", "stats", "-i", split});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, one.out);
  EXPECT_NE(d.out.find("%pairs:begin"), std::string::npos) << d.out;
}
