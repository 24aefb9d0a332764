// Where a recording's bytes come from. Sequential reading (pipe mode, from a
// pipe or a regular file) goes through one growing buffer filled by read(2),
// so memory stays at the size of the largest record however big the input
// is, and never above the bytes the input really holds: a length field is
// believed only as far as the file goes, and on a pipe the buffer grows as
// bytes arrive. Random access (file mode) maps a regular file on demand; the reader
// releases pages behind it with release_before(). Spans handed out stay
// valid until the next call that asks for more bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/fd.h"

namespace sonde::format {

class ByteSource {
 public:
  // Opens path ("-" = stdin). Throws sonde::Error on failure.
  explicit ByteSource(const std::string& path);
  // Reads an fd the caller opened (a pipe from an in-process recorder).
  explicit ByteSource(UniqueFd fd);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Makes at least n bytes available from the current position; false if
  // the input ends first (available() then tells how many there are).
  bool ensure(size_t n);
  size_t available() const { return end_ - pos_; }
  const uint8_t* data() const { return buf_.data() + pos_; }
  void consume(size_t n) { pos_ += n; offset_ += n; }
  uint64_t offset() const { return offset_; }
  // The input's size for regular files, else 0.
  uint64_t size() const { return file_size_; }
  // Whole-file view for random access (file mode): maps a regular file on
  // first use; empty for pipes.
  std::span<const uint8_t> whole();
  // Drops mapped pages before `offset` from memory (they are re-read from
  // the file if touched again).
  void release_before(uint64_t offset);

 private:
  void inspect(const std::string& path);  // regular file or not, its size; the read buffer
  bool fill(size_t n);
  uint64_t remaining_in_file() const;

  UniqueFd fd_;
  bool regular_ = false;
  uint64_t file_size_ = 0;
  const uint8_t* map_ = nullptr;
  size_t map_size_ = 0;
  uint64_t released_ = 0;
  std::vector<uint8_t> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

}  // namespace sonde::format
