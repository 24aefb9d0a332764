// sonde report's option errors (one line, exit 2, nothing on stdout, found
// before the recording is read), and --stats on a recording that lost
// samples, against perf report --stats.
#include <gtest/gtest.h>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"

using namespace sonde::test;
using namespace sonde::format;

namespace {

constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

// The sample_id trailer of kSampleType: identifier, tid, time, cpu.
void put_sample_id(RecordBuilder& b, uint64_t time) {
  b.put(SyntheticStream::kEventId).put(uint32_t{100}).put(uint32_t{100}).put(time).put(uint32_t{0}).put(uint32_t{0});
}

// A pipe-mode stream with samples, LOST records and the LOST_SAMPLES records
// that report the same losses again (as both recorders write them).
void write_lossy(const std::string& path) {
  SyntheticStream s(path, kSampleType);
  uint64_t time = 1000000000;
  for (int i = 0; i < 20; ++i) {
    RecordBuilder b(kSample, kMiscUser);
    b.put(SyntheticStream::kEventId).put(uint64_t{0x401000 + 16 * uint64_t(i)}).put(uint32_t{100}).put(uint32_t{100});
    b.put(time += 1000).put(uint32_t{0}).put(uint32_t{0}).put(uint64_t{250000});
    ASSERT_TRUE(b.finish());
    s.writer().write_record(b.bytes());
    if (i % 5 == 4) {
      RecordBuilder lost(kLost, 0);
      lost.put(SyntheticStream::kEventId).put(uint64_t{7});
      put_sample_id(lost, time);
      ASSERT_TRUE(lost.finish());
      s.writer().write_record(lost.bytes());
      RecordBuilder lost_samples(kLostSamples, 0);
      lost_samples.put(uint64_t{7});
      put_sample_id(lost_samples, time);
      ASSERT_TRUE(lost_samples.finish());
      s.writer().write_record(lost_samples.bytes());
    }
  }
  s.writer().write_finished_round();
}

}  // namespace

TEST(ReportStats, LostSamplesCountedOnceAsPerf) {
  TempDir dir;
  const std::string data = dir / "lossy.data";
  write_lossy(data);
  auto ours = run({sonde_bin(), "report", "--stats", "-i", data});
  auto perf = sh("perf report --stats -i " + data + " 2>/dev/null");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_NE(perf.out.find("LOST_SAMPLES events:"), std::string::npos) << perf.out;
  // The hand-made attr leaves exclude_guest unset: perf adds ":HG" to the
  // name the stream gives (sonde's recorder sets it: no suffix there).
  std::string perf_text = perf.out;
  if (auto at = perf_text.find("cpu-clock:HG stats:"); at != std::string::npos) perf_text.erase(at + 9, 3);
  EXPECT_EQ(first_difference(ours.out, perf_text), "");
  // The report's total: the four losses once (28 samples), not twice.
  auto report = run({sonde_bin(), "report", "-i", data});
  EXPECT_NE(report.out.find("# Total Lost Samples: 28\n"), std::string::npos) << report.out;
}

TEST(ReportErrors, BadValuesAreOneLineUsageErrorsBeforeReading) {
  TempDir dir;
  const std::string missing = dir / "missing.data";  // never read: the options fail first
  const std::string text_file = dir / "text";
  ASSERT_EQ(sh("echo hello > " + text_file).exit_code, 0);
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-g", "sideways"},
       "sonde: -g 'sideways': unknown word 'sideways' (print type graph|fractal|flat|folded|none, threshold, print "
       "limit, order caller|callee, key function|address|srcline, branch, value percent|period|count)\n"},
      {{"-g", "graph,150"}, "sonde: -g 'graph,150': the threshold 150 is not a percentage (0..100)\n"},
      {{"-g", "graph,0.5,10,x"},
       "sonde: -g 'graph,0.5,10,x': unknown word 'x' (print type graph|fractal|flat|folded|none, threshold, print "
       "limit, order caller|callee, key function|address|srcline, branch, value percent|period|count)\n"},
      {{"--sort", "bogus"},
       "sonde: unknown sort key 'bogus' (keys: overhead, overhead_sys, overhead_us, overhead_children, sample, "
       "period, comm, pid, tid, dso, sym, symbol, srcline, parent, cpu, socket, core)\n"},
      {{"-F", "overhead,nope"},
       "sonde: -F: unknown field 'nope' (fields: overhead, overhead_sys, overhead_us, overhead_children, sample, "
       "period, comm, pid, tid, dso, sym, symbol, srcline, parent, cpu, socket, core)\n"},
      {{"--parent", "(unclosed"}, ""},
      {{"--ignore-callees", "[z-a]"}, ""},
      {{"--time", "later"},
       "sonde: --time 'later': expected START,STOP in seconds (either may be empty), or percentages (10%/2, 0%-10%, "
       "25%)\n"},
      {{"--time", "10%/0"}, "sonde: --time '10%/0': percentages must be within 0%..100%\n"},
      {{"--percent-limit", "101"}, "sonde: --percent-limit must be within 0..100\n"},
      {{"--format", "xml"}, "sonde: unknown --format 'xml' (text or json)\n"},
      {{"-k", dir / "no-vmlinux"}, "sonde: -k " + (dir / "no-vmlinux") + ": cannot read it: No such file or directory\n"},
      {{"-k", text_file}, "sonde: -k " + text_file + ": not an ELF file (a vmlinux with symbols)\n"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {sonde_bin(), "report", "-i", missing};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv);
    SCOPED_TRACE(args.front() + " " + args.back());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    // A bad regex's reason is libstdc++'s text: only the start is sonde's.
    if (!message.empty()) EXPECT_EQ(r.err, message);
    else EXPECT_TRUE(r.err.starts_with("sonde: " + args.front() + " '" + args.back() + "': not a regular expression"))
        << r.err;
  }
}

// socket and core need the recording's CPU topology, which sonde's own
// recordings do not carry: a usage error, after reading, before output.
TEST(ReportErrors, SocketWithoutTopologyIsAUsageError) {
  TempDir dir;
  const std::string data = dir / "lossy.data";
  write_lossy(data);
  auto r = run({sonde_bin(), "report", "--sort", "socket", "-i", data});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "sonde: --sort socket/core: " + data + " has no CPU topology (perf's HEADER_CPU_TOPOLOGY)\n");
}
