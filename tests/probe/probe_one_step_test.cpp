// `sonde record -e 'probe:BIN:DEF'`: sonde probe's definitions recorded in
// one step through the SDT extension's BPF uprobe_multi link (arguments read
// in BPF), nothing written to tracefs, nothing left after the recording.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "probe/probe_test_env.h"

using namespace sonde::test;

namespace {

// "EVENT: arg1=.. argN=.." lines of `sonde script -F event,trace`.
std::vector<std::string> script_hits(const std::string& data) {
  auto r = sh(quoted(sonde_bin()) + " script -F event,trace -i " + quoted(data));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out;
  for (auto l : lines(r.out)) {
    size_t start = l.find('%');
    if (start == std::string::npos) continue;
    l = l.substr(start);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out.push_back(l);
  }
  return out;
}

// `sonde record -q -o DIR/d -e 'probe:BIN:DEF' -- BIN CALLS`.
RunResult record_one_step(const TempDir& dir, const ProbeFixture& bin, const std::string& def, int calls) {
  return sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " + quoted("probe:" + bin.path() + ":" + def) +
            " -- " + quoted(bin.path()) + " " + std::to_string(calls));
}

}  // namespace

TEST(ProbeOneStep, ArgumentValuesEqualTheFixturesAndNothingStays) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  std::string p = "probe:" + bin.path() + ":";
  auto rec = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " +
                quoted(p + "handle_request req->id req->size flags") + " -e " + quoted(p + "scale value factor") +
                " -- " + quoted(bin.path()) + " 3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> want;
  for (const auto& l : lines(rec.out)) {
    int id, flags, value, factor, ret;
    long size, r;
    char name[32];
    if (sscanf(l.c_str(), "handle_request id=%d size=%ld name=%31s flags=%d ret=%ld", &id, &size, name, &flags, &r) == 5)
      want.push_back(fmt::format("%{}:handle_request: arg1={} arg2={} arg3={}", bin.group(), id, size, flags));
    else if (sscanf(l.c_str(), "scale value=%d factor=%d ret=%d", &value, &factor, &ret) == 3)
      want.push_back(fmt::format("%{}:scale: arg1={} arg2={}", bin.group(), value, factor));
  }
  ASSERT_EQ(want.size(), 6u) << rec.out;
  EXPECT_EQ(script_hits(dir / "d"), want);
  EXPECT_TRUE(bin.events().empty());  // never in tracefs
}

TEST(ProbeOneStep, FrameBaseLocationsAtO0) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  auto rec = record_one_step(dir, bin, "scale value factor", 2);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> want = {"%" + bin.group() + ":scale: arg1=7 arg2=2",
                                   "%" + bin.group() + ":scale: arg1=8 arg2=3"};
  EXPECT_EQ(script_hits(dir / "d"), want);
}

TEST(ProbeOneStep, WhatTheRecipeCannotFetchIsAUsageErrorBeforeAnyOutput) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0");
  ASSERT_TRUE(bin.ok());
  for (const std::string& def : {std::string("handle_request flags:b4@0/32"),  // a bitfield
                                 std::string("handle_request flags:string"),    // a string needs a pointer read
                                 std::string("handle_reqest")}) {
    auto r = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " +
                quoted("probe:" + bin.path() + ":" + def) + " -- " + quoted(bin.path()) + " 1");
    EXPECT_EQ(r.exit_code, 2) << def << "\n" << r.err;
    EXPECT_EQ(count_lines_with(r.err, "sonde"), 1u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "d")) << def;
  }
}

// Return probes: one uprobe_multi link with the return flag (or per-site
// uprobe events with the retprobe bit), $retval from %rax; entry and return
// pair up in `sdt latency`.
class ProbeOneStepRoute : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Routes, ProbeOneStepRoute, ::testing::Values("multi", "perf-event"),
                         [](const auto& info) { return std::string(info.param) == "multi" ? "multi" : "perf_event"; });

TEST_P(ProbeOneStepRoute, ReturnValuesAndEntryReturnPairs) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  std::string p = "probe:" + bin.path() + ":";
  auto rec = sh(std::string("SONDE_SDT_ATTACH=") + GetParam() + " " + quoted(sonde_bin()) + " record -q -o " +
                quoted(dir / "d") + " -e " + quoted(p + "scale value") + " -e " + quoted(p + "scale%return $retval:s32") +
                " -- " + quoted(bin.path()) + " 3");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> want;
  for (const auto& l : lines(rec.out)) {
    int value, factor, ret;
    if (sscanf(l.c_str(), "scale value=%d factor=%d ret=%d", &value, &factor, &ret) != 3) continue;
    want.push_back(fmt::format("%{}:scale: arg1={}", bin.group(), value));
    want.push_back(fmt::format("%{}:scale__return: arg1={}", bin.group(), ret));
  }
  ASSERT_EQ(want.size(), 6u) << rec.out;
  EXPECT_EQ(script_hits(dir / "d"), want);
  auto lat = sh(quoted(sonde_bin()) + " sdt latency -i " + quoted(dir / "d") + " " + quoted("%" + bin.group() + ":scale") +
                " " + quoted("%" + bin.group() + ":scale__return"));
  EXPECT_EQ(lat.exit_code, 0) << lat.err;
  EXPECT_NE(lat.out.find("by tid: 3 pairs"), std::string::npos) << lat.out;
}

// A lazy line pattern (perf's ;PTN) in one step: the line that prints
// "loop i=.. sum=.." is hit once per iteration with the values it prints.
TEST(ProbeOneStep, LazyLinePatternHitsTheMatchingLine) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2");
  ASSERT_TRUE(bin.ok());
  auto rec = record_one_step(dir, bin, "main;*\"loop* i sum", 3);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> want;
  for (const auto& l : lines(rec.out)) {
    int i;
    long sum;
    if (sscanf(l.c_str(), "loop i=%d sum=%ld", &i, &sum) == 2)
      want.push_back(fmt::format("%{}:main: arg1={} arg2={}", bin.group(), i, sum));
  }
  ASSERT_EQ(want.size(), 3u) << rec.out;
  EXPECT_EQ(script_hits(dir / "d"), want);
  EXPECT_TRUE(bin.events().empty());
}
