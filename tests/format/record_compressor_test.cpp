// RecordCompressor on its own: the COMPRESSED records it makes, each read
// back with one zstd context as perf and sonde read them.
#include "format/record_compressor.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <random>

#include "format/perf_abi.h"


namespace sonde::format {
namespace {

// Expands each COMPRESSED record of `packed` in turn; returns what each gave.
std::vector<std::vector<uint8_t>> expand_each(const std::vector<uint8_t>& packed) {
  std::vector<std::vector<uint8_t>> out;
  ZSTD_DCtx* d = ZSTD_createDCtx();
  std::vector<uint8_t> buf(1 << 20);
  for (size_t pos = 0; pos + sizeof(RecordHeader) <= packed.size();) {
    RecordHeader h;
    std::memcpy(&h, packed.data() + pos, sizeof h);
    EXPECT_EQ(h.type, kCompressed);
    EXPECT_GT(h.size, sizeof h);
    ZSTD_inBuffer in{packed.data() + pos + sizeof h, h.size - sizeof h, 0};
    std::vector<uint8_t> got;
    while (in.pos < in.size) {
      ZSTD_outBuffer o{buf.data(), buf.size(), 0};
      size_t r = ZSTD_decompressStream(d, &o, &in);
      if (ZSTD_isError(r)) {
        ADD_FAILURE() << ZSTD_getErrorName(r);
        break;
      }
      got.insert(got.end(), buf.data(), buf.data() + o.pos);
    }
    out.push_back(std::move(got));
    pos += h.size;
  }
  ZSTD_freeDCtx(d);
  return out;
}

void check_round_trip(const std::vector<uint8_t>& input, size_t calls, int level) {
  RecordCompressor c(level);
  std::vector<uint8_t> packed;
  size_t step = (input.size() + calls - 1) / calls;
  for (size_t at = 0; at < input.size(); at += step)
    c.compress({input.data() + at, std::min(step, input.size() - at)}, packed);
  EXPECT_EQ(c.plain_bytes(), input.size());
  EXPECT_EQ(c.compressed_bytes(), packed.size());
  std::vector<uint8_t> joined;
  for (const auto& part : expand_each(packed)) {
    // Never empty (perf 6.1 fails on that), never more than one slice.
    EXPECT_GT(part.size(), 0u);
    EXPECT_LE(part.size(), RecordCompressor::kSliceBytes);
    joined.insert(joined.end(), part.begin(), part.end());
  }
  EXPECT_EQ(joined, input);
}

TEST(RecordCompressor, IncompressibleInputStillGivesOneSlicePerRecord) {
  std::mt19937 rng(7);
  std::vector<uint8_t> noise(1 << 20);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  check_round_trip(noise, 1, 1);
  check_round_trip(noise, 7, 19);
}

TEST(RecordCompressor, RepetitiveInputShrinksAndExpandsBack) {
  std::vector<uint8_t> samples;
  for (uint32_t i = 0; i < 40000; ++i) {
    uint64_t words[6] = {0x0000'0048'0001'0009ull, 0x401000u + (i % 7), 1234, i * 250000ull, 1, 0};
    const auto* p = reinterpret_cast<const uint8_t*>(words);
    samples.insert(samples.end(), p, p + sizeof words);
  }
  RecordCompressor c(1);
  std::vector<uint8_t> packed;
  c.compress(samples, packed);
  EXPECT_LT(packed.size() * 5, samples.size());
  check_round_trip(samples, 13, 1);
}

}  // namespace
}  // namespace sonde::format
