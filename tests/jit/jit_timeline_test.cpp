// JIT code named from a jitdump by the sample's time: a synthetic recording
// of pid 4242 whose dump loads function A at 0x10000, then B at the same
// address. Samples before and after B's load resolve to A and to B; on a
// clock that is not the dump's, both are B and the report says why; the
// recording's copy of the dump (OUTPUT.jit/) serves once the original is
// gone; a malformed dump is named in one line.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <filesystem>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/records.h"
#include "support/jitdump_writer.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"
#include "util/fs.h"

using namespace sonde::test;
using namespace sonde::format;

namespace {

constexpr uint32_t kPid = 4242;
constexpr uint64_t kAddr = 0x10000;
constexpr int32_t kClockMonotonic = 1;

void write_dump(const std::string& path) {
  JitdumpWriter w(kPid);
  w.load(100, kAddr, 0x100, "LazyCompile:*alpha /app.js:1", 1)
      .debug_info(299, kAddr, {{kAddr, 7, 3, "/app.js"}, {kAddr + 0x40, 9, 5, "\xff"}})
      .load(300, kAddr, 0x100, "LazyCompile:*beta /app.js:20", 2)
      .close(500);
  sonde::write_file_atomic(path, w.str());
}

void sample(StreamWriter& w, uint64_t ip, uint64_t time) {
  RecordBuilder s(kSample, kMiscUser);
  s.put(SyntheticStream::kEventId).put(ip).put(kPid).put(kPid).put(time).put(uint64_t{1});
  ASSERT_TRUE(s.finish());
  w.write_record(s.bytes());
}

// The recording: the dump's announcement (an r-x mmap of it) at time 50,
// samples at kAddr+0x50 at times 200 (A's) and 400 (B's).
void write_recording(const std::string& path, const std::string& dump, int32_t clockid) {
  AttrLayout layout;
  layout.clockid = clockid;
  SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_PERIOD, layout);
  StreamWriter& w = stream.writer();
  Mmap2View m;
  m.misc = kMiscUser;
  m.pid = m.tid = kPid;
  m.addr = 0x7f0000000000;
  m.len = 4096;
  m.prot = PROT_READ | PROT_EXEC;
  m.filename = dump;
  RecordBuilder b = build_mmap2(m);
  b.put(kPid).put(kPid).put(uint64_t{50}).put(SyntheticStream::kEventId);
  ASSERT_TRUE(b.finish());
  w.write_record(b.bytes());
  sample(w, kAddr + 0x50, 200);
  sample(w, kAddr + 0x50, 400);
  w.write_finished_round();
  stream.close();
}

// The symbol of each sample, in order, from `sonde script -F time,sym`.
std::vector<std::string> symbols(const std::string& data, std::string* err = nullptr) {
  auto r = run({sonde_bin(), "script", "-i", data, "-F", "ip,sym,symoff,dso"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err) *err = r.err;
  // "   ADDR NAME+OFF (DSO)": the name on.
  std::vector<std::string> out;
  for (const auto& l : lines(r.out)) {
    auto addr = l.find_first_not_of(" \t");
    auto space = l.find(' ', addr);
    if (addr != std::string::npos && space != std::string::npos) out.push_back(l.substr(space + 1));
  }
  EXPECT_FALSE(out.empty()) << r.out;
  return out;
}

}  // namespace

TEST(JitTimeline, AnAddressReusedOverTimeNamesTheFunctionThereAtEachSample) {
  TempDir dir;
  const std::string dump = dir / "jit-4242.dump", data = dir / "mono.data";
  write_dump(dump);
  write_recording(data, dump, kClockMonotonic);
  auto syms = symbols(data);
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0], "LazyCompile:*alpha /app.js:1+0x50 (" + dump + ")");
  EXPECT_EQ(syms[1], "LazyCompile:*beta /app.js:20+0x50 (" + dump + ")");
}

TEST(JitTimeline, OnAnotherClockTheLastFunctionWinsAndTheReportSaysSo) {
  TempDir dir;
  const std::string dump = dir / "jit-4242.dump", data = dir / "perfclock.data";
  write_dump(dump);
  write_recording(data, dump, -1);
  std::string err;
  auto syms = symbols(data, &err);
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0], "LazyCompile:*beta /app.js:20+0x50 (" + dump + ")");
  EXPECT_EQ(syms[1], syms[0]);
  EXPECT_NE(err.find("sonde script: the recording's clock is not the jitdump's (CLOCK_MONOTONIC): JIT code reused at "
                     "one address is named after its last function"),
            std::string::npos)
      << err;
}

TEST(JitTimeline, TheRecordingsCopyServesOnceTheDumpIsGone) {
  TempDir dir;
  const std::string dump = dir / "jit-4242.dump", data = dir / "copied.data";
  write_dump(dump);
  write_recording(data, dump, kClockMonotonic);
  std::filesystem::create_directory(data + ".jit");
  std::filesystem::rename(dump, data + ".jit/jit-4242.dump");
  auto syms = symbols(data);
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0], "LazyCompile:*alpha /app.js:1+0x50 (" + dump + ")");
  EXPECT_EQ(syms[1], "LazyCompile:*beta /app.js:20+0x50 (" + dump + ")");
}

TEST(JitTimeline, DebugInfoGivesTheSourceLineOfTheCodeAtTheSample) {
  TempDir dir;
  const std::string dump = dir / "jit-4242.dump", data = dir / "lines.data";
  write_dump(dump);
  write_recording(data, dump, kClockMonotonic);
  auto r = run({sonde_bin(), "report", "-i", data, "--stdio", "--sort", "srcline", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // B's sample at +0x50 is past its second entry (+0x40: line 9, printed
  // with the file's base name as perf does); A has no lines: its symbol and
  // offset stand in, as perf prints them.
  EXPECT_NE(r.out.find("    50.00%    50.00%  app.js:9\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    50.00%    50.00%  LazyCompile:*alpha /app.js:1+80\n"), std::string::npos) << r.out;
}

TEST(JitTimeline, AMalformedDumpIsNamedInOneLine) {
  TempDir dir;
  const std::string dump = dir / "jit-4242.dump", data = dir / "bad.data";
  JitdumpWriter w(kPid);
  w.load(100, kAddr, 0x100, "alpha");
  sonde::jit::JitRecordPrefix p{sonde::jit::kCodeLoad, 1u << 20, 200};
  w.raw(&p, sizeof p);
  sonde::write_file_atomic(dump, w.str());
  write_recording(data, dump, kClockMonotonic);
  std::string err;
  auto syms = symbols(data, &err);
  ASSERT_EQ(syms.size(), 2u);
  EXPECT_EQ(syms[0], "alpha+0x50 (" + dump + ")");  // what came before the bad record is kept
  EXPECT_NE(err.find("sonde script: jitdump: " + dump + " at offset 358: record of 1048576 bytes with 16 left"),
            std::string::npos)
      << err;
}
