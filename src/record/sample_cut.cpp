#include "record/sample_cut.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "format/perf_abi.h"
#include "format/uapi/perf_event.h"

namespace sonde::record {

namespace {

// A bounds-checked cursor over a sample's u64-aligned fields.
class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> b) : b_(b) {}
  size_t at() const { return at_; }
  bool ok() const { return ok_; }
  bool skip(size_t n) {
    if (!ok_ || n > b_.size() - at_) return ok_ = false;
    at_ += n;
    return true;
  }
  uint64_t u64() {
    uint64_t v = 0;
    if (ok_ && 8 <= b_.size() - at_) std::memcpy(&v, b_.data() + at_, 8);
    skip(8);
    return v;
  }
  uint32_t u32() {
    uint32_t v = 0;
    if (ok_ && 4 <= b_.size() - at_) std::memcpy(&v, b_.data() + at_, 4);
    skip(4);
    return v;
  }

 private:
  std::span<const uint8_t> b_;
  size_t at_ = sizeof(format::RecordHeader);
  bool ok_ = true;
};

// The record as far as its header says (never past the bytes given).
std::span<const uint8_t> whole(std::span<const uint8_t> rec) {
  if (rec.size() < sizeof(format::RecordHeader)) return {};
  format::RecordHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  if (h.size < sizeof h || h.size > rec.size()) return {};
  return rec.first(h.size);
}

}  // namespace

size_t sample_id_of(std::span<const uint8_t> sample, uint64_t sample_type, std::span<uint8_t> out) {
  sample = whole(sample);
  if (sample.empty()) return 0;
  // The sample's leading fixed-size fields, in the sample's order.
  constexpr uint64_t kFixed[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,        PERF_SAMPLE_TID,
                                 PERF_SAMPLE_TIME,       PERF_SAMPLE_ADDR,      PERF_SAMPLE_ID,
                                 PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU};
  size_t offset_of[8] = {};
  Cursor c(sample);
  for (size_t i = 0; i < 8; ++i) {
    if (!(sample_type & kFixed[i])) continue;
    offset_of[i] = c.at();
    c.u64();
  }
  if (!c.ok()) return 0;
  // The trailer's order: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
  constexpr size_t kTrailer[] = {2, 3, 5, 6, 7, 0};
  size_t n = 0;
  for (size_t i : kTrailer) {
    if (!(sample_type & kFixed[i])) continue;
    if (out.size() - n < 8) return 0;
    std::memcpy(out.data() + n, sample.data() + offset_of[i], 8);
    n += 8;
  }
  return n;
}

size_t cut_user_stack(std::span<uint8_t> sample, uint64_t sample_type, uint64_t regs_user_mask, size_t keep) {
  auto rec = whole(sample);
  if (rec.empty() || !(sample_type & PERF_SAMPLE_STACK_USER)) return 0;
  // Fields the recorder never asks for, whose layout depends on more than
  // sample_type.
  if (sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK)) return 0;
  Cursor c(rec);
  for (uint64_t bit : {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
                       PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD})
    if (sample_type & bit) c.u64();
  if (sample_type & PERF_SAMPLE_CALLCHAIN) {
    uint64_t nr = c.u64();
    if (nr > rec.size() / 8) return 0;
    c.skip(nr * 8);
  }
  if (sample_type & PERF_SAMPLE_RAW) c.skip(c.u32());  // the u32 and its bytes end 8-aligned
  if (sample_type & PERF_SAMPLE_REGS_USER) {
    if (c.u64() != 0) c.skip(static_cast<size_t>(std::popcount(regs_user_mask)) * 8);
  }
  const size_t size_at = c.at();
  const uint64_t size = c.u64();
  if (!c.ok()) return 0;
  if (size == 0) return rec.size();
  if (size > rec.size() || !c.skip(size)) return 0;
  const uint64_t dyn = c.u64();
  if (!c.ok()) return 0;
  const size_t rest_at = c.at();  // fields after the stack, if any
  const uint64_t kept = std::min<uint64_t>(size, keep) & ~uint64_t{7};
  if (kept == size) return rec.size();

  uint8_t* p = sample.data();
  std::memcpy(p + size_at, &kept, 8);
  size_t end = size_at + 8 + kept;
  if (kept > 0) {
    uint64_t new_dyn = std::min(dyn, kept);
    std::memcpy(p + end, &new_dyn, 8);
    end += 8;
  }
  std::memmove(p + end, p + rest_at, rec.size() - rest_at);
  const size_t new_size = end + (rec.size() - rest_at);
  format::RecordHeader h;
  std::memcpy(&h, p, sizeof h);
  h.size = static_cast<uint16_t>(new_size);
  std::memcpy(p, &h, sizeof h);
  return new_size;
}

}  // namespace sonde::record
