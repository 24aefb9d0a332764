// Writes perf's pipe-mode stream. The same bytes go to a file, a pipe or
// stdout: nothing is ever seeked or patched, records are appended whole, so
// the output is valid at every record boundary that reached the fd.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/perf_abi.h"
#include "format/record_compressor.h"
#include "util/fd.h"

namespace sonde::format {

class StreamWriter {
 public:
  // Takes ownership of fd (unless it is stdout, which is left open).
  explicit StreamWriter(int fd);
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  void write_pipe_header();
  // HEADER_ATTR: the attr, attr_size_to_write(attr) bytes of it (the size
  // its kernel accepted; the whole struct when attr.size is not set),
  // followed by its ids. perf 6.1 reads every size from 64 to 136.
  void write_attr(const perf_event_attr& attr, std::span<const uint64_t> ids);
  // HEADER_FEATURE with an already encoded payload. Features that would not
  // fit the u16 size are skipped (perf 6.1 would corrupt the stream); returns
  // false then.
  bool write_feature(FeatureId id, std::span<const uint8_t> payload);
  void write_features_end() { write_feature(kFeatLast, {}); }
  void write_event_update_name(uint64_t id, std::string_view name);
  // HEADER_TRACING_DATA: the 16-byte record, then the blob padded to 8.
  void write_tracing_data(std::span<const uint8_t> blob);
  void write_finished_round();
  void write_finished_init();

  // Appends one complete record (header.size must equal bytes.size()).
  void write_record(std::span<const uint8_t> bytes) { append(bytes.data(), bytes.size()); }
  void write_record(const void* data, size_t size) { append(data, size); }

  // From now on, records go out packed in COMPRESSED records (zstd at
  // `level`), except FINISHED_ROUND, which stays inline as perf writes it.
  // Everything written before stays plain: perf -z compresses only what it
  // drains from the ring buffers.
  void compress_from_here(std::unique_ptr<RecordCompressor> compressor);
  const RecordCompressor* compressor() const { return compressor_.get(); }

  // Pushes buffered bytes to the fd. Throws sonde::Error on a write failure.
  void flush();
  uint64_t bytes_written() const { return written_ + buf_.size() + pending_.size(); }

 private:
  void append(const void* data, size_t size);
  void append_inline(const void* data, size_t size);
  void pack_pending();

  int fd_;
  bool owns_fd_;
  std::vector<uint8_t> buf_;      // bytes ready for the fd
  std::vector<uint8_t> pending_;  // records waiting to be compressed into buf_
  std::unique_ptr<RecordCompressor> compressor_;
  uint64_t written_ = 0;
};

}  // namespace sonde::format
