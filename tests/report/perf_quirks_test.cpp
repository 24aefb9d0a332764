// perf 6.1's quirks that sonde does not copy, each shown on a recording made
// by hand so that it holds on every kernel build. The comparison tests
// normalise them in one place (report/report_compare.h); these tests keep
// that normalisation honest: if perf changes, they fail and say so.
#include <gtest/gtest.h>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/records.h"
#include "report/report_compare.h"
#include "support/synthetic_stream.h"

using namespace sonde::test;
using namespace sonde::format;

namespace {

constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
constexpr uint32_t kPid = 4242;
constexpr uint64_t kBase = 0x7f0000000000;  // where the object without symbols is mapped

// The sample_id trailer of kSampleType: tid, time, then the identifier last.
void put_sample_id(RecordBuilder& b, uint64_t time) { b.put(kPid).put(kPid).put(time).put(SyntheticStream::kEventId); }

void write_side_band(SyntheticStream& s) {
  CommView c;
  c.pid = c.tid = kPid;
  c.comm = "quirk";
  RecordBuilder comm = build_comm(c);
  put_sample_id(comm, 1000);
  ASSERT_TRUE(comm.finish());
  s.writer().write_record(comm.bytes());
  Mmap2View m;
  m.pid = m.tid = kPid;
  m.addr = kBase;
  m.len = 0x10000;
  m.prot = 5;  // r-x
  m.flags = 2;
  m.filename = "/nonexistent/sonde-quirk/unnamed.so";  // no file: no symbols, for either tool
  RecordBuilder mmap = build_mmap2(m);
  put_sample_id(mmap, 1001);
  ASSERT_TRUE(mmap.finish());
  s.writer().write_record(mmap.bytes());
}

// Samples at leaf+0x1185 (30) and leaf+0x1196 (10), both called from +0x12e8.
void write_unnamed_frames(const std::string& path) {
  SyntheticStream s(path, kSampleType);
  write_side_band(s);
  uint64_t time = 2000;
  for (int i = 0; i < 40; ++i) {
    const uint64_t ip = kBase + (i < 30 ? 0x1185 : 0x1196);
    RecordBuilder b(kSample, kMiscUser);
    b.put(SyntheticStream::kEventId).put(ip).put(kPid).put(kPid).put(time += 1000);
    b.put(uint64_t{250000});  // period, then the call chain
    b.put(uint64_t{3}).put(kContextUser).put(ip).put(kBase + 0x12e8);
    ASSERT_TRUE(b.finish());
    s.writer().write_record(b.bytes());
  }
  s.writer().write_finished_round();
}

}  // namespace

// One unnamed frame, two rows in perf: the self row by the object-relative
// address, the children row by the absolute one. sonde prints one row.
TEST(PerfQuirks, UnnamedFrameIsTwoChildrenRowsInPerf) {
  TempDir dir;
  const std::string pipe = dir / "pipe.data", file = dir / "file.data";
  write_unnamed_frames(pipe);
  auto conv = run({sonde_bin(), "convert", "-i", pipe, "--to", "perf", "-o", file});  // perf: Children in file mode
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  auto r = compare_reports(file, "--children -g none --sort sym", "--children -g none --sort sym");
  ASSERT_EQ(r.ours.exit_code, 0) << r.ours.err;
  ASSERT_EQ(r.perf.exit_code, 0);
  // perf's quirk, as perf 6.1 prints it.
  EXPECT_NE(r.perf.out.find("[.] 0x0000000000001185"), std::string::npos) << r.perf.out;
  EXPECT_NE(r.perf.out.find("[.] 0x00007f0000001185"), std::string::npos) << r.perf.out;
  // sonde's answer: one row per frame, 75% self and children.
  EXPECT_NE(r.ours.out.find("75.00%    75.00%  [.] 0x0000000000001185"), std::string::npos) << r.ours.out;
  EXPECT_EQ(r.ours.out.find("0x00007f0000001185"), std::string::npos) << r.ours.out;
  // The one normalisation the comparison tests apply makes them agree.
  EXPECT_NE(first_difference(r.ours.out, without_tip(r.perf.out)), "");
  EXPECT_EQ(r.difference, "");
}
