// --time's parser: perf's forms and perf's arithmetic for percentages.
#include <gtest/gtest.h>

#include "analysis/time_ranges.h"
#include "util/error.h"

using sonde::analysis::TimeRange;
using sonde::analysis::TimeSpec;

namespace {

std::vector<std::pair<uint64_t, uint64_t>> pairs(const TimeSpec& spec, uint64_t first = 0, uint64_t last = 0) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const sonde::analysis::TimeRanges ranges = spec.resolve(first, last);
  for (const TimeRange& r : ranges.ranges()) out.push_back({r.start, r.end});
  return out;
}

}  // namespace

TEST(TimeSpec, AbsoluteRangesInNanoseconds) {
  using P = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(pairs(TimeSpec::parse("1.5,2")), (P{{1500000000, 2000000000}}));
  EXPECT_EQ(pairs(TimeSpec::parse("12345.000000001,")), (P{{12345000000001, 0}}));
  EXPECT_EQ(pairs(TimeSpec::parse(",.25")), (P{{0, 250000000}}));
  EXPECT_EQ(pairs(TimeSpec::parse("1,2 3,4")), (P{{1000000000, 2000000000}, {3000000000, 4000000000}}));
  EXPECT_EQ(pairs(TimeSpec::parse("1, 2  3,4")), (P{{1000000000, 2000000000}, {3000000000, 4000000000}}));
  EXPECT_FALSE(TimeSpec::parse("1,2").needs_sample_times());
}

TEST(TimeSpec, PercentagesAsPerfComputesThem) {
  using P = std::vector<std::pair<uint64_t, uint64_t>>;
  // perf: start + round(p * span); an end short of the last sample is one ns earlier.
  EXPECT_EQ(pairs(TimeSpec::parse("10%/2"), 1000, 2000), (P{{1100, 1199}}));
  EXPECT_EQ(pairs(TimeSpec::parse("0%-10%,90%-100%"), 1000, 2000), (P{{1000, 1099}, {1900, 2000}}));
  EXPECT_EQ(pairs(TimeSpec::parse("25%"), 1000, 2000), (P{{1000, 1249}}));
  EXPECT_TRUE(TimeSpec::parse("25%").needs_sample_times());
}

TEST(TimeSpec, ContainsKeepsUntimedSamplesAndOpenEnds) {
  auto r = TimeSpec::parse("1,2 3,").resolve();
  EXPECT_TRUE(r.contains(0));
  EXPECT_TRUE(r.contains(1000000000));
  EXPECT_TRUE(r.contains(2000000000));
  EXPECT_FALSE(r.contains(2000000001));
  EXPECT_TRUE(r.contains(UINT64_MAX));
  EXPECT_TRUE(TimeSpec().resolve().contains(5));
}

TEST(TimeSpec, MalformedIsAUsageError) {
  for (const char* bad : {"", "abc", "1", "1,2,3", "2,1", "1,a", "-1,2", "1.1234567890,", "10%%", "x%", "10%/0",
                          "110%-120%", "5%-", "0%/3", "18446744074,"}) {
    try {
      TimeSpec::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const sonde::Error& e) {
      EXPECT_EQ(e.kind(), sonde::ErrorKind::Usage) << bad;
    }
  }
}
