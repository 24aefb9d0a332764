// A hand-built pipe-mode stream for reader tests: the header, one cpu-clock
// attr (id 7, the given sample_type, sample_id_all), its name and the end of
// the features; the test appends records through writer().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/stream_writer.h"

namespace sonde::test {

// How the HEADER_ATTR is laid out: attr.size = `size` (0: the writer's
// default, sizeof(perf_event_attr)), the attr's bytes up to that size, then
// the id. Past sizeof(perf_event_attr) the record carries `tail` (zeros when
// empty), as a recorder from a newer kernel would.
struct AttrLayout {
  uint32_t size = 0;
  std::vector<uint8_t> tail;
  int32_t clockid = -1;  // >= 0: use_clockid with this clock
};

class SyntheticStream {
 public:
  static constexpr uint64_t kEventId = 7;

  // Creates `path`; a failure is a thrown sonde::Error.
  SyntheticStream(const std::string& path, uint64_t sample_type, const AttrLayout& layout = {});
  format::StreamWriter& writer() { return *writer_; }
  // Flushes and closes the file (also done by the destructor).
  void close() { writer_.reset(); }

 private:
  std::unique_ptr<format::StreamWriter> writer_;
};

}  // namespace sonde::test
