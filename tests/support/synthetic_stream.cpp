#include "support/synthetic_stream.h"

#include <fcntl.h>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "util/error.h"

namespace sonde::test {

namespace {

// A HEADER_ATTR larger than perf_event_attr: the whole struct, the tail, the id.
void write_long_attr(format::StreamWriter& w, perf_event_attr a, const AttrLayout& layout, uint64_t id) {
  a.size = layout.size;
  format::RecordBuilder b(format::kHeaderAttr, 0);
  b.put(a);
  std::vector<uint8_t> tail = layout.tail;
  tail.resize(layout.size - sizeof a);
  b.put_bytes(tail);
  b.put(id);
  if (!b.finish()) throw_runtime("attr of {} bytes does not fit a record", layout.size);
  w.write_record(b.bytes());
}

}  // namespace

SyntheticStream::SyntheticStream(const std::string& path, uint64_t sample_type, const AttrLayout& layout) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_runtime("cannot create {}: {}", path, errno_text(errno));
  writer_ = std::make_unique<format::StreamWriter>(fd);
  writer_->write_pipe_header();
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  if (layout.clockid >= 0) {
    a.use_clockid = 1;
    a.clockid = layout.clockid;
  }
  const uint64_t ids[] = {kEventId};
  if (layout.size > sizeof a) {
    write_long_attr(*writer_, a, layout, kEventId);
  } else {
    a.size = layout.size;
    writer_->write_attr(a, ids);
  }
  writer_->write_features_end();
  writer_->write_event_update_name(kEventId, "cpu-clock");
}

}  // namespace sonde::test
