// Reports of SDT recordings: a probe hit is one event, so each probe's rows
// add up to 100% by hits, in sonde's report and in perf's.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "format/perf_abi.h"
#include "format/session.h"
#include "support/test_support.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*
namespace format = sonde::format;

namespace {

// The section of a report for one event: from its "# Samples: " line to the next.
std::string event_section(const std::string& report, const std::string& event) {
  auto at = report.find("of event '" + event + "'");
  if (at == std::string::npos) return "";
  auto end = report.find("# Samples:", at);
  return report.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST(SdtReport, EachProbeIsWeighedByItsHits) {
  TempDir dir;
  std::string bin = dir / "forms", data = dir / "sdt.data";
  ASSERT_TRUE(compile_fixture("sdt_forms.c", bin, "-O2"));
  auto r = sh(sonde_bin() + " record -q -N -g -e '%sfix:regs' -e '%sfix:stack' -o " + data + " -- " + bin +
              " 5 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ours = run({sonde_bin(), "report", "--no-children", "--sort", "sym", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto regs = event_section(ours.out, "%sfix:regs");
  EXPECT_NE(regs.find("Event count (approx.): 5\n"), std::string::npos) << ours.out;
  EXPECT_NE(regs.find("100.00%  [.] fire_regs"), std::string::npos) << ours.out;
  EXPECT_NE(event_section(ours.out, "%sfix:stack").find("100.00%  [.] fire_stack"), std::string::npos) << ours.out;
  // perf reads the same weights from the stream.
  auto theirs = sh("perf report --stdio --no-children --sort sym -i " + data + " 2>/dev/null");
  EXPECT_NE(theirs.out.find("Event count (approx.): 5\n"), std::string::npos) << theirs.out;
  EXPECT_NE(theirs.out.find("100.00%  [.] fire_regs"), std::string::npos) << theirs.out;

  // A recording whose probe samples carry period 0 (as the kernel writes
  // bpf-output samples, and sonde did before) is still counted by hits.
  std::ifstream in(data, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  uint64_t sample_type = 0;
  size_t zeroed = 0;
  for (size_t pos = sizeof(format::PipeHeader); pos + 8 <= bytes.size();) {
    format::RecordHeader h;
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    ASSERT_GE(h.size, 8u);
    if (h.type == format::kHeaderAttr) std::memcpy(&sample_type, bytes.data() + pos + 8 + 24, 8);
    if (h.type == format::kSample) {
      int at = format::sample_field_offset(sample_type, PERF_SAMPLE_PERIOD);
      ASSERT_GE(at, 0);
      std::memset(bytes.data() + pos + 8 + at, 0, 8);
      ++zeroed;
    }
    pos += h.size;
  }
  ASSERT_EQ(zeroed, 10u);
  std::string old = dir / "old.data";
  std::ofstream(old, std::ios::binary) << bytes;
  // (perf sees the zeros: the samples were changed.)
  auto perf_old = sh("perf report --stdio --no-children --sort sym -i " + old + " 2>/dev/null");
  EXPECT_NE(perf_old.out.find("Event count (approx.): 0\n"), std::string::npos) << perf_old.out;
  auto old_report = run({sonde_bin(), "report", "--no-children", "--sort", "sym", "-i", old});
  ASSERT_EQ(old_report.exit_code, 0) << old_report.err;
  EXPECT_NE(event_section(old_report.out, "%sfix:regs").find("100.00%  [.] fire_regs"), std::string::npos)
      << old_report.out;
}
