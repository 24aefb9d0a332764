// Where a recording's bytes come from: a memory-mapped regular file (zero
// copy) or a pipe read through a growing buffer. Both hand out spans that
// stay valid until the next call that asks for more bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/fd.h"

namespace sonde::perf {

class ByteSource {
 public:
  // Opens path ("-" = stdin). Throws sonde::Error on failure.
  explicit ByteSource(const std::string& path);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Makes at least n bytes available from the current position; false if
  // the input ends first (available() then tells how many there are).
  bool ensure(size_t n);
  size_t available() const { return end_ - pos_; }
  const uint8_t* data() const { return base() + pos_; }
  void consume(size_t n) { pos_ += n; offset_ += n; }
  uint64_t offset() const { return offset_; }
  bool is_mapped() const { return map_ != nullptr; }
  uint64_t size() const { return map_ ? map_size_ : 0; }
  // Whole-file view for random access (file mode); empty for pipes.
  std::span<const uint8_t> whole() const { return {map_, map_ ? map_size_ : 0}; }

 private:
  const uint8_t* base() const { return map_ ? map_ : buf_.data(); }
  bool fill(size_t n);

  UniqueFd fd_;
  const uint8_t* map_ = nullptr;
  size_t map_size_ = 0;
  std::vector<uint8_t> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

}  // namespace sonde::perf
