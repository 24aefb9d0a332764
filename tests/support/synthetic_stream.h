// A hand-built pipe-mode stream for reader tests: the header, one cpu-clock
// attr (id 7, the given sample_type, sample_id_all), its name and the end of
// the features; the test appends records through writer().
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "format/stream_writer.h"

namespace sonde::test {

class SyntheticStream {
 public:
  static constexpr uint64_t kEventId = 7;

  // Creates `path`; a failure is a thrown sonde::Error.
  SyntheticStream(const std::string& path, uint64_t sample_type);
  perf::StreamWriter& writer() { return *writer_; }
  // Flushes and closes the file (also done by the destructor).
  void close() { writer_.reset(); }

 private:
  std::unique_ptr<perf::StreamWriter> writer_;
};

}  // namespace sonde::test
