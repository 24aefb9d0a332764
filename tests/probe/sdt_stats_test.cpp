// sonde sdt stats: hits per probe, and per argument count/min/max/mean and a
// bpftrace-style histogram, from a recording of the fixture's known values.
#include <gtest/gtest.h>

#include "support/test_support.h"

using namespace sonde::test;

TEST(SdtStats, HitsAndArgumentHistogramsOfTheFixturesValues) {
  TempDir dir;
  std::string bin = dir / "forms", data = dir / "st.data";
  ASSERT_TRUE(compile_fixture("sdt_forms.c", bin, "-O2"));
  auto r = sh(sonde_bin() + " record -q -N -e '%sfix:plain' -e '%sfix:regs' -o " + data + " -- " + bin +
              " 100 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto plain = run({sonde_bin(), "sdt", "stats", "-i", data, "%sfix:plain"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // `plain` fires with the loop index 0..99.
  EXPECT_EQ(plain.out,
            "%sfix:plain: 100 hits\n"
            "  arg1: count 100, min 0, max 99, mean 49.5\n"
            "    [0]                       1 |@                                                   |\n"
            "    [1]                       1 |@                                                   |\n"
            "    [2, 4)                    2 |@@                                                  |\n"
            "    [4, 8)                    4 |@@@@@                                               |\n"
            "    [8, 16)                   8 |@@@@@@@@@@@                                         |\n"
            "    [16, 32)                 16 |@@@@@@@@@@@@@@@@@@@@@@@                             |\n"
            "    [32, 64)                 32 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@      |\n"
            "    [64, 128)                36 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
  // `regs` passes one value of each size and sign: the extremes land where
  // their type says (u64 above 2^63, negative 64-bit).
  auto all = run({sonde_bin(), "sdt", "stats", "-i", data});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* line : {"%sfix:regs: 100 hits\n", "  arg1: count 100, min -5, max -5, mean -5\n",
                           "  arg4: count 100, min 65000, max 65000, mean 65000\n",
                           "    [32K, 64K)              100 |",
                           "  arg7: count 100, min -5000000000, max -5000000000, mean -5000000000\n",
                           "  arg8: count 100, min 18000000000000000000, max 18000000000000000000, mean 1.8e+19\n",
                           "    [8E, 16E)               100 |"})
    EXPECT_NE(all.out.find(line), std::string::npos) << line << "\n" << all.out;
  EXPECT_LT(all.out.find("%sfix:plain"), all.out.find("%sfix:regs"));  // by name
}

TEST(SdtStats, RecordingsWithoutHitsAndBadInputSaySo) {
  TempDir dir;
  std::string data = dir / "cpu.data";
  ASSERT_EQ(run({sonde_bin(), "record", "-q", "-N", "-o", data, "--", "true"}).exit_code, 0);
  auto none = run({sonde_bin(), "sdt", "stats", "-i", data});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "sonde sdt stats: no SDT probe hits in " + data + "\n");
  auto missing = run({sonde_bin(), "sdt", "stats", "-i", dir / "missing.data"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
}
