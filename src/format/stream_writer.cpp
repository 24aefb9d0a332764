#include "format/stream_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/attr_sizes.h"
#include "format/record_builder.h"
#include "util/error.h"

namespace sonde::format {

namespace {
// Large enough that a busy drain pass is one write(2), small enough that a
// kill -9 between flushes loses little.
constexpr size_t kFlushThreshold = 1 << 20;
}  // namespace

StreamWriter::StreamWriter(int fd) : fd_(fd), owns_fd_(fd != STDOUT_FILENO) {
  buf_.reserve(2 * kFlushThreshold);
}

StreamWriter::~StreamWriter() {
  try {
    flush();
  } catch (...) {
    // Destructors must not throw; the explicit flush() reports errors.
  }
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void StreamWriter::append(const void* data, size_t size) {
  if (!compressor_) return append_inline(data, size);
  if (size == 0) return;
  pending_.insert(pending_.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  if (pending_.size() >= kFlushThreshold) {
    pack_pending();
    if (buf_.size() >= kFlushThreshold) flush();
  }
}

void StreamWriter::append_inline(const void* data, size_t size) {
  if (size == 0) return;
  size_t at = buf_.size();
  buf_.resize(at + size);
  std::memcpy(buf_.data() + at, data, size);
  if (buf_.size() >= kFlushThreshold) flush();
}

void StreamWriter::compress_from_here(std::unique_ptr<RecordCompressor> compressor) {
  compressor_ = std::move(compressor);
  pending_.reserve(kFlushThreshold + 64 * 1024);
}

void StreamWriter::pack_pending() {
  if (pending_.empty()) return;
  compressor_->compress(pending_, buf_);
  pending_.clear();
}

void StreamWriter::flush() {
  if (compressor_) pack_pending();
  if (buf_.empty()) return;
  if (!write_all(fd_, buf_.data(), buf_.size())) {
    int err = errno;
    buf_.clear();
    throw_runtime("cannot write the recording: {}", errno_text(err));
  }
  written_ += buf_.size();
  buf_.clear();
}

void StreamWriter::write_pipe_header() {
  PipeHeader h{kMagic, kPipeHeaderSize};
  append(&h, sizeof h);
}

void StreamWriter::write_attr(const perf_event_attr& attr, std::span<const uint64_t> ids) {
  RecordBuilder b(kHeaderAttr, 0);
  perf_event_attr a = attr;
  a.size = attr_size_to_write(attr);
  b.put_bytes({reinterpret_cast<const uint8_t*>(&a), a.size});
  for (uint64_t id : ids) b.put(id);
  if (!b.finish()) throw_runtime("too many event ids for one attribute record ({})", ids.size());
  write_record(b.bytes());
}

bool StreamWriter::write_feature(FeatureId id, std::span<const uint8_t> payload) {
  if (payload.size() + sizeof(FeatureFixed) > 0xffff) return false;
  RecordBuilder b(kHeaderFeature, 0);
  b.put(static_cast<uint64_t>(id));
  b.put_bytes(payload);
  b.finish();
  write_record(b.bytes());
  return true;
}

void StreamWriter::write_event_update_name(uint64_t id, std::string_view name) {
  RecordBuilder b(kEventUpdate, 0);
  b.put(kEventUpdateName);
  b.put(id);
  b.put_cstring(name, 8);
  b.finish();
  write_record(b.bytes());
}

void StreamWriter::write_tracing_data(std::span<const uint8_t> blob) {
  uint32_t padded = static_cast<uint32_t>((blob.size() + 7) / 8 * 8);
  TracingDataRecord r{{kHeaderTracingData, 0, sizeof(TracingDataRecord)}, padded, 0};
  append(&r, sizeof r);
  append(blob.data(), blob.size());
  static const uint8_t zeros[8] = {};
  append(zeros, padded - blob.size());
}

void StreamWriter::write_finished_round() {
  if (compressor_) pack_pending();  // the round's records come before its end
  RecordHeader h{kFinishedRound, 0, sizeof(RecordHeader)};
  append_inline(&h, sizeof h);
}

void StreamWriter::write_finished_init() {
  RecordHeader h{kFinishedInit, 0, sizeof(RecordHeader)};
  append(&h, sizeof h);
}

}  // namespace sonde::format
