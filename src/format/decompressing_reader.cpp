#include "format/decompressing_reader.h"

#include <fmt/format.h>
#include <zstd.h>

#include <cstring>
#include <vector>

#include "format/record_framing.h"
#include "util/byte_reader.h"

namespace sonde::format {

namespace {

// Payloads are decompressed as their records are taken, so the buffer holds
// the largest single record (with its trailing bytes), not a whole payload's
// output: a small COMPRESSED record that expands a thousandfold costs time
// per record delivered, not memory. One record larger than this is a bomb.
constexpr size_t kMaxPending = size_t{256} << 20;
constexpr size_t kInitialBuffer = size_t{1} << 20;

class DecompressingReader : public RecordReader {
 public:
  explicit DecompressingReader(std::unique_ptr<RecordReader> inner) : inner_(std::move(inner)) { sync(); }
  ~DecompressingReader() override {
    if (dctx_) ZSTD_freeDCtx(dctx_);
  }
  DecompressingReader(const DecompressingReader&) = delete;
  DecompressingReader& operator=(const DecompressingReader&) = delete;

  bool next(RecordView& out) override {
    for (;;) {
      if (failed_) return false;
      if (head_ < tail_) {
        int got = next_buffered(out);
        if (got > 0) return true;
        if (got < 0) return false;
        // got == 0: only part of a record is buffered; more comes from the
        // payload, or with the next COMPRESSED record.
      }
      if (draining_) {
        if (!decompress_more()) return false;
        continue;
      }
      bool ok = inner_->next(out);
      if (!ok) {
        sync();
        if (head_ < tail_) truncated_bytes_ += tail_ - head_;  // a record cut by the end of the compressed data
        return false;
      }
      // Most recordings have no COMPRESSED record: then this layer only
      // passes records through, and mirrors the inner state cheaply (the
      // rest of it is taken at the end and around COMPRESSED records).
      position_ = inner_->position();
      if (out.header.type == kCompressed) {
        ++compressed_records_;
        sync();
        if (!start_payload(out)) return false;
        continue;
      }
      if (!is_known_record_type(out.header.type)) continue;  // counted by the inner reader
      return true;
    }
  }

 private:
  // Mirrors the inner reader's state; the counts add what this layer saw.
  void sync() {
    truncated_bytes_ = inner_->truncated_bytes();
    // Called per record: no string copy unless there is an error to take.
    if (error_.empty() && !inner_->error().empty()) error_ = inner_->error();
    position_ = inner_->position();
    input_size_ = inner_->input_size();
    unknown_records_ = inner_->unknown_records() + own_unknown_;
    file_mode_ = inner_->file_mode();
    file_header_ = inner_->file_header();
  }

  bool fail(std::string message) {
    error_ = std::move(message);
    failed_ = true;
    return false;
  }

  // 1: a record was produced; 0: the buffer holds only an incomplete record;
  // -1: malformed data (error_ set).
  int next_buffered(RecordView& out) {
    while (head_ < tail_) {
      const size_t left = tail_ - head_;
      if (left < sizeof(RecordHeader)) return 0;
      const uint8_t* p = buf_.data() + head_;
      RecordHeader h = load<RecordHeader>(p);
      if (h.size < sizeof(RecordHeader)) {
        fail(fmt::format("bad record header size {} in the compressed data of the record at offset {:#x}", h.size,
                         compressed_offset_));
        return -1;
      }
      if (h.size > left) return 0;
      uint64_t extra = trailing_size(h, p);
      if (extra > kMaxPending) {
        fail(fmt::format("record in the compressed data at offset {:#x} claims {} trailing bytes",
                         compressed_offset_, extra));
        return -1;
      }
      if (extra > left - h.size) return 0;
      head_ += h.size + extra;
      if (!is_known_record_type(h.type) || h.type == kCompressed) {
        ++own_unknown_;
        unknown_records_ = inner_->unknown_records() + own_unknown_;
        continue;
      }
      out.header = h;
      out.bytes = {p, h.size};
      out.trailing = {p + h.size, static_cast<size_t>(extra)};
      out.offset = compressed_offset_;
      return 1;
    }
    return 0;
  }

  // The payload stays in the inner reader's buffer until its next(), which
  // is not called before the payload is drained.
  bool start_payload(const RecordView& rec) {
    if (!dctx_) {
      dctx_ = ZSTD_createDCtx();
      if (!dctx_) return fail("cannot create a zstd decompression context");
      buf_.resize(kInitialBuffer);
    }
    compressed_offset_ = rec.offset;
    auto payload = rec.bytes.subspan(sizeof(RecordHeader));
    in_ = ZSTD_inBuffer{payload.data(), payload.size(), 0};
    draining_ = true;
    return true;
  }

  // Decodes what fits after the unread records; the buffer grows only when
  // one record does not fit in it.
  bool decompress_more() {
    if (head_ > 0) {
      std::memmove(buf_.data(), buf_.data() + head_, tail_ - head_);
      tail_ -= head_;
      head_ = 0;
    }
    if (tail_ == buf_.size()) {
      if (buf_.size() >= kMaxPending)
        return fail(fmt::format("a record in the COMPRESSED record at offset {:#x} is larger than {} MiB",
                                compressed_offset_, kMaxPending >> 20));
      buf_.resize(std::min(buf_.size() * 2, kMaxPending));
    }
    ZSTD_outBuffer outb{buf_.data(), buf_.size(), tail_};
    size_t ret = ZSTD_decompressStream(dctx_, &outb, &in_);
    tail_ = outb.pos;
    if (ZSTD_isError(ret))
      return fail(fmt::format("cannot decompress the COMPRESSED record at offset {:#x}: {}", compressed_offset_,
                              ZSTD_getErrorName(ret)));
    // Drained when the input is used up and zstd did not stop for lack of
    // output room (it may still hold decoded bytes in that case).
    draining_ = !(in_.pos == in_.size && outb.pos < outb.size);
    return true;
  }

  std::unique_ptr<RecordReader> inner_;
  ZSTD_DCtx* dctx_ = nullptr;
  std::vector<uint8_t> buf_;
  size_t head_ = 0, tail_ = 0;
  ZSTD_inBuffer in_{};
  bool draining_ = false;  // the current payload may still give bytes
  uint64_t compressed_offset_ = 0;
  uint64_t own_unknown_ = 0;
  bool failed_ = false;
};

}  // namespace

std::unique_ptr<RecordReader> make_decompressing_reader(std::unique_ptr<RecordReader> inner) {
  return std::make_unique<DecompressingReader>(std::move(inner));
}

}  // namespace sonde::format
