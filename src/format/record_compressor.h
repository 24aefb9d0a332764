// Packs records into PERF_RECORD_COMPRESSED (81) records, as `perf record -z`
// does: one zstd stream for the whole recording, flushed at the end of every
// call, so every COMPRESSED record that reached the output decodes (a reader
// keeps one decompression context, and a killed recorder leaves a readable
// prefix). Input is fed in slices of at most kSliceBytes, each ending in a
// flush, and a slice's worst-case compressed size fits one record: every
// COMPRESSED record holds exactly one slice, so it expands to at least one
// byte (perf 6.1 rejects a record that expands to nothing) and at most
// kSliceBytes, the bound readers size their buffer by (the feature's mmap_len).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

struct ZSTD_CCtx_s;

namespace sonde::format {

class RecordCompressor {
 public:
  // perf 6.1's COMPRESSED has a u16 size and no alignment padding.
  static constexpr size_t kMaxPayload = 0xffff - 8;
  static constexpr size_t kSliceBytes = 60 * 1024;

  // level: zstd's, 1..22 (perf's -z default is 1). Throws sonde::Error when
  // libzstd refuses it.
  explicit RecordCompressor(int level);
  ~RecordCompressor();
  RecordCompressor(const RecordCompressor&) = delete;
  RecordCompressor& operator=(const RecordCompressor&) = delete;

  // Appends COMPRESSED records holding `records` (whole records) to `out`.
  void compress(std::span<const uint8_t> records, std::vector<uint8_t>& out);

  int level() const { return level_; }
  uint64_t plain_bytes() const { return plain_; }
  uint64_t compressed_bytes() const { return compressed_; }  // COMPRESSED records, headers included

 private:
  ZSTD_CCtx_s* cctx_ = nullptr;
  int level_;
  std::vector<uint8_t> scratch_;  // one record's payload, allocated once
  uint64_t plain_ = 0, compressed_ = 0;
};

}  // namespace sonde::format
