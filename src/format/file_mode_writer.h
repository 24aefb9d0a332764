// Writes perf's file-mode perf.data (what `perf record -o F` writes) from any
// recording sonde reads, for tools that only read file mode. Layout:
//   [104-byte header][data section][feature table][feature sections]
//   [attr id lists][attrs section]
// perf finds the feature table at data.offset + data.size and everything
// else through the header's offsets, so the data can be streamed to disk
// first and the attrs (known only once the input is read) written last.
// Features: those of the input (pipe-mode payloads are the same bytes), with
// EVENT_DESC rebuilt from the attrs and event names, TRACING_DATA from
// HEADER_TRACING_DATA, BUILD_ID from HEADER_BUILD_ID records and MMAP2
// build-ids, SAMPLE_TIME from the samples written, and COMPRESSED dropped
// (the data is written decompressed).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/session.h"
#include "format/stream_reader.h"
#include "util/atomic_file.h"

namespace sonde::format {

class FileModeWriter {
 public:
  // Creates a hidden temporary file beside out_path (util/atomic_file.h);
  // finish() renames it onto out_path. Throws sonde::Error if it cannot be
  // created.
  explicit FileModeWriter(std::string out_path);
  // Removes the temporary file if finish() did not run, also when SIGINT,
  // SIGTERM or SIGHUP ends the process: no partial output.
  ~FileModeWriter();
  FileModeWriter(const FileModeWriter&) = delete;
  FileModeWriter& operator=(const FileModeWriter&) = delete;

  // Every record of the input, in reader order. Metadata records (attrs,
  // features, event names, tracing data, build-ids) feed the header; the rest
  // goes to the data section as is. A caller filtering samples simply does
  // not pass the samples it drops.
  void write(const RecordView& rec);
  // Writes the feature sections, attrs and header, then renames the file
  // into place. Throws sonde::Error on a write failure.
  void finish();

  uint64_t data_bytes() const { return data_size_; }

 private:
  void append(const void* p, size_t n);
  void flush();
  void note_build_id(uint16_t cpumode, std::string_view name, const uint8_t* id, size_t size);

  std::string out_path_;
  AtomicFile out_;
  std::vector<uint8_t> buf_;
  uint64_t file_pos_ = 0;   // bytes handed to the kernel so far
  uint64_t data_size_ = 0;  // bytes of data section so far
  bool finished_ = false;
  Session session_;
  // "name\0id" -> table entry (HEADER_BUILD_ID layout with type 0).
  std::map<std::string, std::vector<uint8_t>> build_ids_;
  uint64_t first_time_ = UINT64_MAX, last_time_ = 0;
};

// Reads `in` to its end and writes it to `out_path` in file mode. Throws
// sonde::Error if the input stops on a malformed record or on write errors;
// on any error out_path is left untouched.
void write_file_mode(RecordReader& in, const std::string& out_path);

}  // namespace sonde::format
