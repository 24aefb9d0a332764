// analysis::TimelineCollector on a hand-built stream: samples at known
// times fall in the bins the rule gives (at most 1000 bins over the span of
// the samples), rows keep their counts and periods, and a LOST_SAMPLES
// record becomes a loss at its sample_id time.
#include <gtest/gtest.h>

#include "analysis/profile_builder.h"
#include "analysis/timeline.h"
#include "format/records.h"
#include "format/stream_reader.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"
#include "symbol/symbolizer.h"

namespace sonde::analysis {
namespace {

using namespace sonde::format;
using sonde::test::SyntheticStream;
using sonde::test::TempDir;

constexpr uint64_t kFirst = 1'000'000, kSpan = 10'000'000;

void write_sample(StreamWriter& w, uint32_t tid, uint64_t time, uint64_t period) {
  RecordBuilder s(kSample, kMiscUser);
  s.put(SyntheticStream::kEventId).put(uint64_t{0x1000}).put(uint32_t{42}).put(tid).put(time).put(period);
  ASSERT_TRUE(s.finish());
  w.write_record(s.bytes());
}

Timeline collect(const std::string& path, Profile* out = nullptr) {
  TimelineCollector c(nullptr);
  ProfileOptions po;
  po.on_kept_sample = [&](const Sample& s, uint32_t agg) { c.on_kept_sample(s, agg); };
  po.on_record = [&](const RecordView& r, const Session& s) { c.on_record(r, s); };
  TempDir cache;
  SymbolizerOptions so;
  so.cache_root = cache.path();
  Symbolizer sym(so);
  auto reader = open_recording(path);
  Profile p = build_profile(*reader, sym, po);
  if (out) *out = std::move(p);
  return c.finish();
}

TEST(Timeline, SamplesFallInTheirBinsAndLossesKeepTheirTime) {
  TempDir dir;
  std::string path = dir / "t.data";
  {
    SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                     PERF_SAMPLE_PERIOD);
    StreamWriter& w = stream.writer();
    // Thread 42: one sample every 100 µs for 10 ms; thread 43: one at the end.
    for (uint64_t k = 0; k < 100; ++k) write_sample(w, 42, kFirst + k * 100'000, 5);
    write_sample(w, 42, kFirst + 100'000 + 1, 7);  // a second one in bin 10
    write_sample(w, 43, kFirst + kSpan - 1, 9);
    // 3 samples lost, reported at 5 ms: the trailer is pid, tid, time, id.
    RecordBuilder l(kLostSamples, 0);
    l.put(uint64_t{3}).put(uint32_t{42}).put(uint32_t{42}).put(kFirst + 5'000'000).put(SyntheticStream::kEventId);
    ASSERT_TRUE(l.finish());
    w.write_record(l.bytes());
    w.write_finished_round();
  }
  Profile p;
  Timeline t = collect(path, &p);
  EXPECT_EQ(t.first, kFirst);
  EXPECT_EQ(t.last, kFirst + kSpan - 1);
  EXPECT_EQ(t.bin_ns, kSpan / Timeline::kMaxBins);  // 10 µs
  EXPECT_EQ(t.bins, Timeline::kMaxBins);
  // 100 rows of thread 42 (bin 10 holds two samples), one of thread 43.
  ASSERT_EQ(t.rows.size(), 101u);
  uint64_t count = 0;
  for (size_t i = 0; i < 100; ++i) {
    const auto& r = t.rows[i];
    EXPECT_EQ(r.bin, i * 10) << i;
    EXPECT_EQ(p.samples[r.aggregate].tid, 42u);
    EXPECT_EQ(r.count, i == 1 ? 2u : 1u) << i;
    EXPECT_EQ(r.period, i == 1 ? 12u : 5u) << i;
    count += r.count;
  }
  EXPECT_EQ(count, 101u);
  EXPECT_EQ(t.rows[100].bin, 999u);
  EXPECT_EQ(p.samples[t.rows[100].aggregate].tid, 43u);
  EXPECT_EQ(t.rows[100].period, 9u);
  ASSERT_EQ(t.losses.size(), 1u);
  EXPECT_EQ(t.losses[0].time, kFirst + 5'000'000);
  EXPECT_EQ(t.losses[0].lost, 3u);
  EXPECT_TRUE(t.markers.empty());
  EXPECT_TRUE(t.offcpu.empty());
}

TEST(Timeline, AShortRecordingHasMicrosecondBins) {
  TempDir dir;
  std::string path = dir / "short.data";
  {
    SyntheticStream stream(path, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                     PERF_SAMPLE_PERIOD);
    write_sample(stream.writer(), 42, kFirst, 1);
    write_sample(stream.writer(), 42, kFirst + 4'500, 1);
    stream.writer().write_finished_round();
  }
  Timeline t = collect(path);
  EXPECT_EQ(t.bin_ns, Timeline::kMinBinNs);
  EXPECT_EQ(t.bins, 5u);  // 4.501 µs in 1 µs bins
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].bin, 0u);
  EXPECT_EQ(t.rows[1].bin, 4u);
}

}  // namespace
}  // namespace sonde::analysis
