#include "format/stream_reader.h"

#include "format/byte_source.h"
#include "format/decompressing_reader.h"
#include "format/file_mode_reader.h"
#include "format/record_framing.h"
#include "util/byte_reader.h"
#include "util/error.h"

namespace sonde::format {

namespace {

class PipeStreamReader : public RecordReader {
 public:
  // `header_size`: 16 for a pipe-mode stream, 0 for perf --threads' data.N.
  PipeStreamReader(std::unique_ptr<ByteSource> src, uint64_t header_size) : src_(std::move(src)) {
    input_size_ = src_->size();
    src_->consume(header_size);
    position_ = src_->offset();
  }

  bool next(RecordView& out) override {
    if (done_) return false;
    if (!src_->ensure(sizeof(RecordHeader))) return stop_truncated();
    RecordHeader h = load<RecordHeader>(src_->data());
    if (h.size < sizeof(RecordHeader)) {
      error_ = fmt::format("bad record header size {} at offset {:#x}", h.size, src_->offset());
      done_ = true;
      return false;
    }
    if (!src_->ensure(h.size)) return stop_truncated();
    uint64_t extra = trailing_size(h, src_->data());
    if (extra > kMaxTrailingSize) {
      error_ = fmt::format("record at offset {:#x} claims {} trailing bytes", src_->offset(), extra);
      done_ = true;
      return false;
    }
    if (!src_->ensure(h.size + extra)) return stop_truncated();
    out.header = h;
    out.offset = src_->offset();
    out.bytes = {src_->data(), h.size};
    out.trailing = {src_->data() + h.size, static_cast<size_t>(extra)};
    src_->consume(h.size + extra);
    position_ = src_->offset();
    if (!is_known_record_type(h.type)) ++unknown_records_;
    return true;
  }

 private:
  bool stop_truncated() {
    truncated_bytes_ = src_->available();
    position_ = src_->offset() + truncated_bytes_;
    done_ = true;
    return false;
  }

  std::unique_ptr<ByteSource> src_;
  bool done_ = false;
};

}  // namespace

namespace {

std::unique_ptr<RecordReader> open_source(std::unique_ptr<ByteSource> src, const std::string& name) {
  if (!src->ensure(sizeof(PipeHeader))) {
    if (src->available() == 0) throw_runtime("{} is empty: no recording to read", name);
    throw_runtime("{} is not a perf.data recording: only {} bytes", name, src->available());
  }
  auto h = load<PipeHeader>(src->data());
  if (h.magic == kMagicSwapped)
    throw_runtime("{} was recorded on a machine of the other byte order, which sonde does not read", name);
  if (h.magic != kMagic) throw_runtime("{} is not a perf.data recording (bad magic)", name);
  // Both modes may hold `perf record -z` COMPRESSED records.
  if (h.size == kPipeHeaderSize) return make_decompressing_reader(std::make_unique<PipeStreamReader>(std::move(src), kPipeHeaderSize));
  if (h.size == kFileHeaderSize) return make_decompressing_reader(open_file_mode(std::move(src), name));
  throw_runtime("{} has an unknown perf.data header size {}", name, h.size);
}

}  // namespace

std::unique_ptr<RecordReader> open_recording(const std::string& path) {
  return open_source(std::make_unique<ByteSource>(path), path == "-" ? "standard input" : path);
}

std::unique_ptr<RecordReader> open_recording(UniqueFd fd, const std::string& name) {
  return open_source(std::make_unique<ByteSource>(std::move(fd)), name);
}

std::unique_ptr<RecordReader> open_raw_records(const std::string& path) {
  return make_decompressing_reader(std::make_unique<PipeStreamReader>(std::make_unique<ByteSource>(path), 0));
}

}  // namespace sonde::format
