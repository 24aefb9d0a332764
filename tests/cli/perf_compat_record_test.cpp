// perf record's data addresses (-d) and bundled short options (-asdg), on
// sonde's recordings read by perf 6.1 and compared with perf's own.
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

// perf evlist -v's "sample_type: A|B|..." of the first event, as a set of names.
std::string attr_field(const std::string& data, const std::string& field) {
  auto out = sh("perf evlist -v -i " + data + " 2>/dev/null").out;
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(field + R"(: ([^,]+))"))) return "";
  return m[1];
}

bool has_flag(const std::string& flags, const std::string& name) {
  return std::regex_search(flags, std::regex("(^|\\|)" + name + "(\\||$)"));
}

}  // namespace

// -d: ADDR and DATA_SRC in every sample and the data mappings, as perf -d.
// Without a PMU only page faults carry an address (the faulting one); the
// other software events carry 0, as perf's.
TEST(PerfCompatRecord, DataAddressesAsPerf) {
  TempDir dir;
  const std::string bin = dir / "two_mix";
  ASSERT_TRUE(compile_fixture("two_mix.c", bin));
  const std::string ours = dir / "ours.data", perf = dir / "perf.data", faults = dir / "faults.data";
  auto r = run({sonde_bin(), "record", "-q", "-d", "-o", ours, "--", bin, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(sh("perf record -q -d -o " + perf + " -- " + bin + " 0.1 2>&1").exit_code, 0);
  for (const std::string& data : {ours, perf}) {
    SCOPED_TRACE(data);
    const std::string st = attr_field(data, "sample_type");
    EXPECT_TRUE(has_flag(st, "ADDR") && has_flag(st, "DATA_SRC")) << st;
    EXPECT_EQ(attr_field(data, "mmap_data"), "1");
  }
  // script -F addr: perf's column, perf's bytes, on sonde's recording.
  for (const char* fields : {"+addr", "comm,tid,event,addr,ip,sym"}) {
    auto mine = run({sonde_bin(), "script", "-i", ours, "-F", fields});
    auto theirs = sh("perf script -i " + ours + " -F " + fields + " 2>/dev/null");
    ASSERT_EQ(mine.exit_code, 0) << mine.err;
    EXPECT_GT(lines(theirs.out).size(), 10u);
    EXPECT_EQ(first_difference(mine.out, theirs.out), "") << fields;
  }
  // Page faults: the faulting addresses, the same in both tools' reading.
  r = run({sonde_bin(), "record", "-q", "-d", "-e", "page-faults", "-c", "1", "-o", faults, "--", bin, "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto mine = run({sonde_bin(), "script", "-i", faults, "-F", "comm,tid,event,addr,ip"});
  auto theirs = sh("perf script -i " + faults + " -F comm,tid,event,addr,ip 2>/dev/null");
  EXPECT_GT(lines(theirs.out).size(), 10u);
  EXPECT_EQ(first_difference(mine.out, theirs.out), "");
  EXPECT_TRUE(std::regex_search(mine.out, std::regex(R"(page-faults: +[1-9a-f][0-9a-f]{5,} )"))) << mine.out;
}

// perf's parser takes single-letter flags bundled: -asdg is -a -s -d -g
// (and -ag, -F99). The recording has what each asks for.
TEST(PerfCompatRecord, BundledShortOptionsAsPerf) {
  TempDir dir;
  const std::string data = dir / "asdg.data";
  auto r = run({sonde_bin(), "record", "-q", "-asdg", "-o", data, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string st = attr_field(data, "sample_type");
  for (const char* flag : {"ADDR", "CALLCHAIN", "CPU", "DATA_SRC"}) EXPECT_TRUE(has_flag(st, flag)) << flag << ": " << st;
  EXPECT_EQ(attr_field(data, "inherit_stat"), "1");  // -s
  EXPECT_EQ(attr_field(data, "enable_on_exec"), "");  // -a: counting from the start, not the command's exec
  const std::string perf_data = dir / "perf.data";
  ASSERT_EQ(sh("perf record -q -asdg -o " + perf_data + " -- true 2>&1").exit_code, 0);
  const std::string perf_st = attr_field(perf_data, "sample_type");
  for (const char* flag : {"ADDR", "CALLCHAIN", "CPU", "DATA_SRC"}) EXPECT_TRUE(has_flag(perf_st, flag)) << flag;
  r = run({sonde_bin(), "record", "-q", "-ag", "-F99", "-o", data, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(attr_field(data, "\\{ sample_period, sample_freq \\}"), "99");
  auto bad = run({sonde_bin(), "record", "-aQ", "-o", dir / "bad.data", "--", "true"});
  EXPECT_EQ(bad.exit_code, 2);
}
