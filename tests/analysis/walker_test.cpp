// RecordingWalker delivers samples in time order across FINISHED_ROUNDs,
// however the records of a round interleave, also when the queued records
// fill several of its storage chunks and chunks are reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "format/record_builder.h"
#include "format/stream_reader.h"
#include "format/stream_writer.h"
#include "analysis/recording_walker.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"

using namespace sonde::format;
using sonde::analysis::RecordingWalker;
using sonde::test::SyntheticStream;
using sonde::test::TempDir;

namespace {

// Rounds of samples whose times are shuffled within the round and overlap
// the previous round's (as two CPUs' buffers drained one after the other
// do); each sample's ip is its time, so order and identity can be checked.
struct Written {
  size_t samples = 0;
  uint64_t ip_sum = 0;
};

Written write_shuffled_rounds(const std::string& path, int rounds, int per_round) {
  SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_PERIOD);
  StreamWriter& w = stream.writer();
  std::mt19937_64 rng(42);
  Written out;
  for (int r = 0; r < rounds; ++r) {
    std::vector<uint64_t> times;
    for (int i = 0; i < per_round; ++i) times.push_back(1000 + uint64_t(r) * per_round + i + (i % 3 == 0 ? 0 : per_round / 2));
    std::shuffle(times.begin(), times.end(), rng);
    for (uint64_t t : times) {
      RecordBuilder s(kSample, kMiscUser);
      s.put(uint64_t{7}).put(t).put(uint32_t{42}).put(uint32_t{42}).put(t).put(uint64_t{1});
      EXPECT_TRUE(s.finish());
      w.write_record(s.bytes());
      ++out.samples;
      out.ip_sum += t;
    }
    w.write_finished_round();
  }
  stream.close();
  return out;
}

}  // namespace

TEST(RecordingWalker, SamplesComeInTimeOrderAcrossRoundsAndStorageChunks) {
  TempDir dir;
  std::string path = dir / "rounds.data";
  // 48-byte samples: 40 rounds of 30000 fill several 1 MiB chunks per round.
  Written w = write_shuffled_rounds(path, 40, 30000);
  auto reader = open_recording(path);
  RecordingWalker walker(*reader, sonde::analysis::dwarf_unwinding(""));
  uint64_t last = 0, ip_sum = 0;
  size_t n = 0, out_of_order = 0;
  walker.run([&](const Sample& s) {
    if (s.time < last) ++out_of_order;
    last = s.time;
    ip_sum += s.ip;
    ++n;
  });
  EXPECT_EQ(n, w.samples);
  EXPECT_EQ(ip_sum, w.ip_sum);  // every sample once, its bytes intact
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(walker.stats().samples, w.samples);
}

namespace {

// A stream of LOST (id, count) and LOST_SAMPLES (count) records, each with
// the sample_id trailer of an IDENTIFIER-only sample_type.
uint64_t walked_lost(const std::string& path, const std::vector<uint64_t>& lost,
                     const std::vector<uint64_t>& lost_samples) {
  {
    SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER);
    StreamWriter& w = stream.writer();
    for (uint64_t n : lost) {
      RecordBuilder r(kLost, 0);
      r.put(SyntheticStream::kEventId).put(n).put(SyntheticStream::kEventId);
      EXPECT_TRUE(r.finish());
      w.write_record(r.bytes());
    }
    for (uint64_t n : lost_samples) {
      RecordBuilder r(kLostSamples, 0);
      r.put(n).put(SyntheticStream::kEventId);
      EXPECT_TRUE(r.finish());
      w.write_record(r.bytes());
    }
    w.write_finished_round();
  }
  auto reader = open_recording(path);
  RecordingWalker walker(*reader, sonde::analysis::dwarf_unwinding(""));
  walker.run([](const Sample&) {});
  return walker.stats().lost_samples;
}

}  // namespace

// perf 6.1 and sonde write a LOST_SAMPLES for the samples a LOST already
// reported: counted once, from the LOST_SAMPLES (perf's "Total Lost
// Samples"); a recording with LOST records only (older perf or kernel)
// counts those.
TEST(RecordingWalker, EachLossIsCountedOnce) {
  TempDir dir;
  EXPECT_EQ(walked_lost(dir / "both.data", {19}, {19}), 19u);
  EXPECT_EQ(walked_lost(dir / "split.data", {3, 4}, {7}), 7u);
  EXPECT_EQ(walked_lost(dir / "lost_only.data", {3, 4}, {}), 7u);
  EXPECT_EQ(walked_lost(dir / "samples_only.data", {}, {6}), 6u);
  EXPECT_EQ(walked_lost(dir / "none.data", {}, {}), 0u);
}
