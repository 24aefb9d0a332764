// Builds one record in a caller-owned byte buffer: header first, fields
// appended, size patched when finished. Used for every record sonde
// synthesizes (attrs, features, COMM/FORK/MMAP2 from /proc, ...).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "format/perf_abi.h"
#include "util/byte_append.h"

namespace sonde::format {

class RecordBuilder {
 public:
  RecordBuilder(uint32_t type, uint16_t misc) {
    RecordHeader h{type, misc, 0};
    put(h);
  }

  template <typename T>
  RecordBuilder& put(const T& v) {
    append_bytes(bytes_, &v, sizeof(T));
    return *this;
  }
  RecordBuilder& put_bytes(std::span<const uint8_t> b) {
    append_bytes(bytes_, b.data(), b.size());
    return *this;
  }
  RecordBuilder& put_zeros(size_t n) {
    bytes_.insert(bytes_.end(), n, 0);
    return *this;
  }
  // A NUL-terminated string padded with zeros to a multiple of `align`
  // (the kernel pads filenames and comms to 8).
  RecordBuilder& put_cstring(std::string_view s, size_t align = 8) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    size_t len = s.size() + 1;
    size_t padded = (len + align - 1) / align * align;
    return put_zeros(padded - s.size());
  }
  // perf's feature string: u32 len, text, NUL, zero padding to 64.
  RecordBuilder& put_perf_string(std::string_view s) {
    uint32_t len = static_cast<uint32_t>((s.size() + 1 + 63) / 64 * 64);
    put(len);
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return put_zeros(len - s.size());
  }
  RecordBuilder& pad_to(size_t align) {
    size_t rem = bytes_.size() % align;
    if (rem) put_zeros(align - rem);
    return *this;
  }

  size_t size() const { return bytes_.size(); }
  // Patches header.size; returns false if the record does not fit in u16.
  bool finish() {
    if (bytes_.size() > 0xffff) return false;
    uint16_t sz = static_cast<uint16_t>(bytes_.size());
    std::memcpy(bytes_.data() + offsetof(RecordHeader, size), &sz, sizeof sz);
    return true;
  }
  std::span<const uint8_t> bytes() const { return bytes_; }
  std::vector<uint8_t>& raw() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Builds one record in a caller's buffer that its writer has sized for the
// largest record it writes (the BPF extensions' samples, bounded by their
// programs' frame and stack limits): no allocation on their hot path.
class SpanRecordWriter {
 public:
  explicit SpanRecordWriter(std::span<uint8_t> buf) : buf_(buf), at_(sizeof(RecordHeader)) {}
  void u64(uint64_t v) { bytes({reinterpret_cast<const uint8_t*>(&v), sizeof v}); }
  void u32x2(uint32_t a, uint32_t b) {
    bytes({reinterpret_cast<const uint8_t*>(&a), sizeof a});
    bytes({reinterpret_cast<const uint8_t*>(&b), sizeof b});
  }
  void bytes(std::span<const uint8_t> b) {
    if (b.empty()) return;  // an empty span's data() may be null
    std::memcpy(buf_.data() + at_, b.data(), b.size());
    at_ += b.size();
  }
  // Writes the header; returns the record's size.
  size_t finish(uint32_t type, uint16_t misc) {
    RecordHeader h{type, misc, static_cast<uint16_t>(at_)};
    std::memcpy(buf_.data(), &h, sizeof h);
    return at_;
  }

 private:
  std::span<uint8_t> buf_;
  size_t at_;
};

}  // namespace sonde::format
