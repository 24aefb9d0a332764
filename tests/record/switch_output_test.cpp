// --switch-output's grammar (perf's) and the naming and keeping of the
// files a rotating recording finishes.
#include "record/switch_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "record/record_test_util.h"
#include "util/error.h"

using sonde::record::parse_switch_output;
using sonde::record::RotatedFiles;
using namespace sonde::test;

namespace {

TEST(SwitchOutput, TakesPerfsSignalSizeAndTimeForms) {
  auto sig = parse_switch_output("signal");
  EXPECT_TRUE(sig.enabled);
  EXPECT_EQ(sig.size_bytes, 0u);
  EXPECT_EQ(sig.seconds, 0u);
  EXPECT_EQ(parse_switch_output("100M").size_bytes, 100ull << 20);
  EXPECT_EQ(parse_switch_output("512B").size_bytes, 512u);
  EXPECT_EQ(parse_switch_output("64K").size_bytes, 64u << 10);
  EXPECT_EQ(parse_switch_output("2G").size_bytes, 2ull << 30);
  // Lower case is time, as in perf: 1m is a minute, not a mebibyte.
  EXPECT_EQ(parse_switch_output("30s").seconds, 30u);
  EXPECT_EQ(parse_switch_output("1m").seconds, 60u);
  EXPECT_EQ(parse_switch_output("2h").seconds, 7200u);
  EXPECT_EQ(parse_switch_output("1d").seconds, 86400u);
  EXPECT_EQ(parse_switch_output("1m").size_bytes, 0u);
}

TEST(SwitchOutput, BadValuesAreOneUsageErrorNamingThem) {
  for (std::string bad : {"", "M", "0M", "0s", "10", "10X", "1.5M", "-1M", "sig", "10MB", "99999999999999999999G"}) {
    try {
      parse_switch_output(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const sonde::Error& e) {
      EXPECT_EQ(e.kind(), sonde::ErrorKind::Usage) << bad;
      EXPECT_NE(std::string(e.what()).find("invalid --switch-output '" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(SwitchOutput, FilesAreNamedWithPerfsTimestampInOrderAndTheOldestGo) {
  TempDir dir;
  std::string out = dir / "x.data";
  RotatedFiles files(out, 2);
  std::vector<std::string> names;
  // Faster than the clock's hundredths: names must still differ and sort.
  for (int i = 0; i < 5; ++i) {
    std::ofstream(out) << i;
    names.push_back(files.retire_current());
  }
  const std::regex perf_name(".*/x\\.data\\.[0-9]{16}");  // YYYYMMDDhhmmss + hundredths, as perf
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_TRUE(std::regex_match(names[i], perf_name)) << names[i];
    if (i > 0) {
      EXPECT_LT(names[i - 1], names[i]);
    }
  }
  EXPECT_EQ(files.retired(), 5u);
  EXPECT_FALSE(file_exists(out));
  for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(file_exists(names[i])) << names[i];
  EXPECT_EQ(slurp(names[3]), "3");
  EXPECT_EQ(slurp(names[4]), "4");
}

TEST(SwitchOutput, AFailedRenameIsARuntimeError) {
  TempDir dir;
  RotatedFiles files(dir / "missing.data", 0);
  try {
    files.retire_current();
    ADD_FAILURE() << "renamed a file that does not exist";
  } catch (const sonde::Error& e) {
    EXPECT_EQ(e.kind(), sonde::ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("cannot rename"), std::string::npos) << e.what();
  }
}

}  // namespace
