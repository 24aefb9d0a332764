// `sonde record -z`: what is drained from the kernel goes out in
// PERF_RECORD_COMPRESSED records, as `perf record -z` writes them, and both
// perf and sonde read the result (from a file, a pipe, or what a kill -9
// left).
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <thread>

#include "format/perf_abi.h"
#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*
namespace format = sonde::format;

namespace {

class RecordCompress : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_)); }
  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "z.data";
};

std::vector<uint8_t> file_bytes(const std::string& path) {
  auto text = slurp(path);
  return {text.begin(), text.end()};
}

// The stream as written: record types in order, the COMPRESSED feature, and
// each COMPRESSED record expanded on its own (one zstd context for all, as
// readers keep): how many bytes each one gave.
struct RawStream {
  std::vector<uint32_t> types;
  bool has_feature = false;
  format::CompressedFeature feature{};
  std::vector<size_t> expanded;  // per COMPRESSED record
  std::vector<uint8_t> plain;    // all COMPRESSED payloads, expanded
  std::string error;
  size_t tail = 0;  // bytes after the last complete record
};

RawStream parse_raw(const std::vector<uint8_t>& b) {
  RawStream s;
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::vector<uint8_t> out(1 << 20);
  size_t pos = sizeof(format::PipeHeader);
  while (pos + sizeof(format::RecordHeader) <= b.size()) {
    format::RecordHeader h;
    std::memcpy(&h, b.data() + pos, sizeof h);
    if (h.size < sizeof h) {
      s.error = "record smaller than its header";
      break;
    }
    if (pos + h.size > b.size()) break;
    s.types.push_back(h.type);
    if (h.type == format::kHeaderFeature && h.size >= 16 + sizeof(format::CompressedFeature)) {
      uint64_t id;
      std::memcpy(&id, b.data() + pos + 8, sizeof id);
      if (id == format::kFeatCompressed) {
        s.has_feature = true;
        std::memcpy(&s.feature, b.data() + pos + 16, sizeof s.feature);
      }
    }
    if (h.type == format::kCompressed) {
      ZSTD_inBuffer in{b.data() + pos + 8, h.size - 8u, 0};
      size_t got = 0;
      while (in.pos < in.size) {
        ZSTD_outBuffer o{out.data(), out.size(), 0};
        size_t r = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(r)) {
          s.error = ZSTD_getErrorName(r);
          break;
        }
        got += o.pos;
        s.plain.insert(s.plain.end(), out.data(), out.data() + o.pos);
        if (o.pos == 0 && in.pos < in.size) {
          s.error = "no progress";
          break;
        }
      }
      s.expanded.push_back(got);
    }
    pos += h.size;
  }
  s.tail = b.size() - pos;
  ZSTD_freeDCtx(d);
  return s;
}

size_t count(const std::vector<uint32_t>& types, uint32_t t) { return std::count(types.begin(), types.end(), t); }

// The numbers of `... (zstd: P bytes of records in C, R.Rx) ...`.
std::pair<uint64_t, uint64_t> summary_sizes(const std::string& err) {
  uint64_t plain = 0, packed = 0;
  auto at = err.find("(zstd: ");
  if (at != std::string::npos) std::sscanf(err.c_str() + at, "(zstd: %lu bytes of records in %lu", &plain, &packed);
  return {plain, packed};
}

}  // namespace

TEST_F(RecordCompress, PerfAndSondeReadEverySampleAndTheStreamIsPerfsShape) {
  auto r = run({sonde_bin(), "record", "-z", "-g", "-F", "4000", "-o", data_, "--", fixture_, "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto raw = parse_raw(file_bytes(data_));
  ASSERT_EQ(raw.error, "");
  EXPECT_EQ(raw.tail, 0u);
  // Samples travel only inside COMPRESSED records; the preamble stays plain
  // and FINISHED_ROUND stays inline, as perf -z writes them.
  EXPECT_GT(count(raw.types, format::kCompressed), 0u);
  EXPECT_EQ(count(raw.types, format::kSample), 0u);
  EXPECT_EQ(count(raw.types, format::kHeaderAttr), 1u);
  EXPECT_GT(count(raw.types, format::kFinishedRound), 0u);
  auto first_packed = std::find(raw.types.begin(), raw.types.end(), format::kCompressed);
  EXPECT_LT(std::find(raw.types.begin(), raw.types.end(), format::kFinishedInit), first_packed);
  ASSERT_TRUE(raw.has_feature);
  EXPECT_EQ(raw.feature.type, format::kCompressionZstd);
  EXPECT_EQ(raw.feature.level, 1u);
  // perf sizes its buffer for one COMPRESSED record by mmap_len, and stops
  // at one that expands to nothing.
  for (size_t n : raw.expanded) {
    EXPECT_LE(n, raw.feature.mmap_len);
    EXPECT_GT(n, 0u);
  }
  // The expanded payloads are whole records.
  size_t pos = 0, samples = 0;
  while (pos + 8 <= raw.plain.size()) {
    format::RecordHeader h;
    std::memcpy(&h, raw.plain.data() + pos, sizeof h);
    ASSERT_GE(h.size, 8u);
    samples += h.type == format::kSample;
    pos += h.size;
  }
  EXPECT_EQ(pos, raw.plain.size());

  // Both readers see every sample, and the summary's sizes are the file's.
  auto f = read_recording(data_);
  EXPECT_EQ(f.reader_error, "");
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_EQ(f.samples.size(), samples);
  EXPECT_GT(samples, 500u);
  auto ps = run({"perf", "script", "-i", data_, "-G", "-F", "comm,tid,event"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
  EXPECT_EQ(lines(ps.out).size(), samples);
  auto [plain, packed] = summary_sizes(r.err);
  EXPECT_EQ(plain, raw.plain.size()) << r.err;
  size_t packed_in_file = 0;
  {
    auto b = file_bytes(data_);
    for (size_t p = sizeof(format::PipeHeader); p + 8 <= b.size();) {
      format::RecordHeader h;
      std::memcpy(&h, b.data() + p, sizeof h);
      if (h.type == format::kCompressed) packed_in_file += h.size;
      p += h.size;
    }
  }
  EXPECT_EQ(packed, packed_in_file) << r.err;
  // Call chains of a hot loop repeat: zstd must do far better than 2x.
  EXPECT_GT(plain, 2 * packed) << r.err;

  auto rep = run({sonde_bin(), "report", "--no-children", "-i", data_});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  auto top = rep.out.find("%  ");
  ASSERT_NE(top, std::string::npos) << rep.out;
  EXPECT_NE(rep.out.substr(top, rep.out.find('\n', top) - top).find("hot_function"), std::string::npos) << rep.out;
  auto prep = run({"perf", "report", "--stdio", "--no-children", "-i", data_});
  EXPECT_NE(prep.out.find("hot_function"), std::string::npos) << prep.out;
}

TEST_F(RecordCompress, StdoutPipesIntoPerfAndSonde) {
  auto to_perf = sh(sonde_bin() + " record -q -z -o - -- " + fixture_ + " 0.3 | perf script -i - -G -F event 2>&1");
  EXPECT_EQ(to_perf.exit_code, 0) << to_perf.out;
  EXPECT_GT(count_lines_with(to_perf.out, "cpu-clock"), 300u) << to_perf.out.substr(0, 2000);
  auto to_sonde = sh(sonde_bin() + " record -q -z -o - -- " + fixture_ + " 0.3 | " + sonde_bin() +
                     " report --no-children -i -");
  EXPECT_EQ(to_sonde.exit_code, 0) << to_sonde.err;
  EXPECT_NE(to_sonde.out.find("hot_function"), std::string::npos) << to_sonde.out;
}

TEST_F(RecordCompress, KillNineLeavesEveryCompleteRecordReadable) {
  pid_t rec = spawn({sonde_bin(), "record", "-z", "-g", "-F", "2000", "-o", data_, "--", fixture_, "1.5"});
  // Until over 100 samples are in the file (in COMPRESSED records).
  EXPECT_TRUE(wait_until([&] { return read_recording(data_).samples.size() > 100; }));
  ASSERT_EQ(::kill(rec, SIGKILL), 0);
  EXPECT_EQ(wait_for(rec), 128 + SIGKILL);
  auto raw = parse_raw(file_bytes(data_));
  EXPECT_EQ(raw.error, "");
  EXPECT_GT(count(raw.types, format::kCompressed), 0u);  // passes are compressed and flushed as they go
  auto f = read_recording(data_);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.reader_error, "");
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_GT(f.samples.size(), 100u);
  auto ps = run({"perf", "script", "-i", data_, "-G", "-F", "comm,tid,event"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_EQ(lines(ps.out).size(), f.samples.size());
  // The orphaned workload ends by itself within 1.5 s.
}

TEST_F(RecordCompress, BadLevelsAreUsageErrorsAndCreateNoFile) {
  for (const char* level : {"0", "23", "-1", "x", ""}) {
    auto r = run({sonde_bin(), "record", "--compression-level", level, "-o", data_, "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << level << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_FALSE(file_exists(data_)) << level;
  }
  // A valid level other than perf's default is recorded in the feature.
  auto r = run({sonde_bin(), "record", "-q", "--compression-level", "9", "-o", data_, "--", fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto raw = parse_raw(file_bytes(data_));
  ASSERT_TRUE(raw.has_feature);
  EXPECT_EQ(raw.feature.level, 9u);
  EXPECT_EQ(raw.error, "");
}
