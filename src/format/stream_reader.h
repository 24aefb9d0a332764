// Iterates the records of a recording, from a file or from a pipe/stdin,
// without trusting any length field: every record is checked against the
// bytes actually present. A truncated tail (a recorder killed mid-write)
// ends the iteration cleanly and is reported by truncated_bytes().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "format/perf_abi.h"
#include "util/fd.h"

namespace sonde::format {

struct RecordView {
  RecordHeader header;
  std::span<const uint8_t> bytes;     // the whole record, header included
  std::span<const uint8_t> trailing;  // out-of-record payload (TRACING_DATA blob, AUXTRACE data)
  uint64_t offset = 0;                // stream offset of the record's first byte
};

// What a file-mode header says (all zero for a pipe-mode stream), for
// `--header`: perf prints the data section's place and which features the
// file has.
struct FileHeaderFacts {
  uint64_t data_offset = 0, data_size = 0;
  uint64_t features[4] = {};  // the feature bitmap
};

class RecordReader {
 public:
  virtual ~RecordReader() = default;
  // The next record; its spans stay valid until the following call.
  // false at the end of the input or at the first malformed record.
  virtual bool next(RecordView& out) = 0;

  // Bytes at the end that did not form a complete record.
  uint64_t truncated_bytes() const { return truncated_bytes_; }
  // Why iteration stopped early on a malformed record ("" if it did not).
  const std::string& error() const { return error_; }
  // Total bytes of input consumed so far (for progress).
  uint64_t position() const { return position_; }
  // Input size when known (regular files), else 0.
  uint64_t input_size() const { return input_size_; }
  // Records whose type this reader skipped because it does not know it.
  uint64_t unknown_records() const { return unknown_records_; }
  bool file_mode() const { return file_mode_; }
  const FileHeaderFacts& file_header() const { return file_header_; }
  // COMPRESSED records read so far (their contents come out as records).
  uint64_t compressed_records() const { return compressed_records_; }
  // Timed records come in delivery order (a merged directory), so readers
  // need not queue them; FINISHED_ROUND records still bound their windows.
  bool time_ordered() const { return time_ordered_; }

 protected:
  uint64_t truncated_bytes_ = 0;
  std::string error_;
  uint64_t position_ = 0;
  uint64_t input_size_ = 0;
  uint64_t unknown_records_ = 0;
  bool file_mode_ = false;
  FileHeaderFacts file_header_;
  uint64_t compressed_records_ = 0;
  bool time_ordered_ = false;
};

// Opens a recording: a path, or "-" for standard input. Detects the format
// from the header. Throws sonde::Error (runtime) with one clear line when the
// input cannot be opened or is not a perf.data stream.
std::unique_ptr<RecordReader> open_recording(const std::string& path);
// The same over an fd the caller opened (`sonde top` reads its in-process
// recorder through a pipe); `name` is what the error messages call it.
std::unique_ptr<RecordReader> open_recording(UniqueFd fd, const std::string& name);

// Records with no header before them (perf record --threads' data.N, whose
// attrs are in the directory's data file: format/recording_dir.h).
std::unique_ptr<RecordReader> open_raw_records(const std::string& path);

}  // namespace sonde::format
