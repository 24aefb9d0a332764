// sonde sdt stats: hits per probe, and per argument count/min/max/mean and a
// bpftrace-style histogram, from a recording of the fixture's known values.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

  // The same numbers as JSON, integers exact.
  auto js = run({sonde_bin(), "sdt", "stats", "--format", "json", "-i", data});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  auto doc = nlohmann::json::parse(js.out);
  ASSERT_EQ(doc["probes"].size(), 2u);
  const auto& p = doc["probes"][0];
  EXPECT_EQ(p["name"], "%sfix:plain");
  EXPECT_EQ(p["hits"], 100);
  const auto& a1 = p["args"][0];
  EXPECT_EQ(a1["min"], 0);
  EXPECT_EQ(a1["max"], 99);
  EXPECT_EQ(a1["mean"], 49.5);
  std::vector<uint64_t> counts, lows;
  for (const auto& b : a1["histogram"]) counts.push_back(b["count"]), lows.push_back(b["low"]);
  EXPECT_EQ(counts, (std::vector<uint64_t>{1, 1, 2, 4, 8, 16, 32, 36}));
  EXPECT_EQ(lows, (std::vector<uint64_t>{0, 1, 2, 4, 8, 16, 32, 64}));
  const auto& regs = doc["probes"][1]["args"];
  EXPECT_EQ(regs[6]["min"].get<int64_t>(), -5000000000);
  EXPECT_EQ(regs[7]["max"].get<uint64_t>(), 18000000000000000000ull);
  EXPECT_TRUE(regs[7]["histogram"][0]["high"].is_null());  // [2^63, 2^64)
  EXPECT_TRUE(regs[0]["histogram"][0]["low"].is_null());   // negatives
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
