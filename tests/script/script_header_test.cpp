// The per-sample header line of `sonde script` is written by hand for speed;
// it must stay byte-identical to the perf-script-like format it replaced,
// "{} {:>7}/{:<7} [{:03}] {}.{:06}: {:>10} {}:", also for values wider than
// their columns.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "format/record_builder.h"
#include "format/stream_reader.h"
#include "format/stream_writer.h"
#include "analysis/recording_walker.h"
#include "script/script_printer.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"

using namespace sonde::format;
using sonde::test::SyntheticStream;
using sonde::test::TempDir;

namespace {

struct Case {
  uint32_t pid, tid, cpu;
  uint64_t time, period;
};

}  // namespace

TEST(ScriptHeader, SameBytesAsTheFormatStringForEveryWidth) {
  const Case cases[] = {
      {1, 1, 0, 0, 0},
      {42, 43, 7, 1234567891, 250000},
      {1234567, 7654321, 999, 999999999999, 9999999999},
      {4294967295u, 4294967294u, 1000, 18446744073709551615ull, 18446744073709551615ull},
      {12345678, 9, 65535, 5000, 12345678901},
  };
  TempDir dir;
  std::string path = dir / "s.data";
  {
    SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
    StreamWriter& w = stream.writer();
    for (const Case& c : cases) {
      RecordBuilder comm(kComm, 0);
      comm.put(c.pid).put(c.tid).put_cstring("worker-thread");
      comm.put(c.pid).put(c.tid).put(uint64_t{0}).put(uint32_t{0}).put(uint32_t{0}).put(SyntheticStream::kEventId);
      ASSERT_TRUE(comm.finish());
      w.write_record(comm.bytes());
      RecordBuilder s(kSample, kMiscUser);
      s.put(SyntheticStream::kEventId).put(uint64_t{0x401000}).put(c.pid).put(c.tid).put(c.time).put(c.cpu).put(uint32_t{0}).put(c.period);
      ASSERT_TRUE(s.finish());
      w.write_record(s.bytes());
      w.write_finished_round();
    }
  }
  std::string out_path = dir / "script.txt";
  {
    auto reader = open_recording(path);
    sonde::analysis::RecordingWalker walker(*reader, sonde::analysis::dwarf_unwinding(""));
    std::FILE* out = std::fopen(out_path.c_str(), "w");
    ASSERT_NE(out, nullptr);
    {
      sonde::script::ScriptPrinter printer(walker, nullptr, {}, out);
      walker.run([&](const Sample& s) { printer.print(s); });
      printer.flush();
    }
    std::fclose(out);
  }
  std::ifstream in(out_path);
  std::vector<std::string> headers;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '\t') headers.push_back(line);
  // Delivery order is the walker's (times 0 and UINT64_MAX are not queued),
  // so compare as sorted lists.
  std::vector<std::string> expected;
  for (const Case& c : cases)
    expected.push_back(fmt::format("worker-thread {:>7}/{:<7} [{:03}] {}.{:06}: {:>10} cpu-clock:", c.pid, c.tid, c.cpu,
                                   c.time / 1000000000, (c.time % 1000000000) / 1000, c.period));
  std::sort(expected.begin(), expected.end());
  std::sort(headers.begin(), headers.end());
  EXPECT_EQ(headers, expected);
}
