#include "format/sample_edit.h"

#include <algorithm>
#include <cstring>

#include "format/perf_abi.h"
#include "format/session.h"
#include "format/uapi/perf_event.h"
#include "util/byte_reader.h"

namespace sonde::format {

namespace {

// The record as far as its header says (never past the bytes given).
std::span<const uint8_t> whole(std::span<const uint8_t> rec) {
  if (rec.size() < sizeof(RecordHeader)) return {};
  const auto h = load<RecordHeader>(rec.data());
  if (h.size < sizeof h || h.size > rec.size()) return {};
  return rec.first(h.size);
}

void store_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

}  // namespace

size_t sample_id_words(uint64_t st, const SampleId& id, uint64_t (&out)[6]) {
  size_t n = 0;
  if (st & PERF_SAMPLE_TID) out[n++] = uint64_t{id.pid} | (uint64_t{id.tid} << 32);
  if (st & PERF_SAMPLE_TIME) out[n++] = id.time;
  if (st & PERF_SAMPLE_ID) out[n++] = id.id;
  if (st & PERF_SAMPLE_STREAM_ID) out[n++] = id.stream_id;
  if (st & PERF_SAMPLE_CPU) out[n++] = id.cpu;
  if (st & PERF_SAMPLE_IDENTIFIER) out[n++] = id.id;
  return n;
}

void put_sample_id(RecordBuilder& b, uint64_t sample_type, const SampleId& id) {
  uint64_t words[6];
  const size_t n = sample_id_words(sample_type, id, words);
  for (size_t i = 0; i < n; ++i) b.put(words[i]);
}

size_t sample_id_of(std::span<const uint8_t> sample, uint64_t sample_type, std::span<uint8_t> out) {
  sample = whole(sample);
  Sample s;
  if (sample.empty() || !decode_sample_fixed(sample_type, sample.subspan(sizeof(RecordHeader)), s)) return 0;
  uint64_t words[6];
  const size_t n = sample_id_words(sample_type, {s.pid, s.tid, s.time, s.id, s.stream_id, s.cpu}, words);
  if (out.size() < 8 * n) return 0;
  std::memcpy(out.data(), words, 8 * n);
  return 8 * n;
}

size_t cut_user_stack(std::span<uint8_t> sample, uint64_t sample_type, uint64_t regs_user_mask, size_t keep) {
  auto rec = whole(sample);
  if (rec.empty() || !(sample_type & PERF_SAMPLE_STACK_USER)) return 0;
  // Fields the recorder never asks for, whose layout depends on more than
  // sample_type and the register mask.
  if (sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK)) return 0;
  perf_event_attr attr{};
  attr.sample_type = sample_type;
  attr.sample_regs_user = regs_user_mask;
  Sample s;
  if (!decode_sample_body(attr, rec.subspan(sizeof(RecordHeader)), s)) return 0;
  const size_t size_at = sizeof(RecordHeader) + s.stack_user_at;
  const uint64_t size = load<uint64_t>(rec.data() + size_at);
  if (size == 0) return rec.size();
  const uint64_t dyn = load<uint64_t>(rec.data() + size_at + 8 + size);  // the decoder read it
  const size_t rest_at = size_at + 8 + size + 8;  // fields after the stack, if any
  const uint64_t kept = std::min<uint64_t>(size, keep) & ~uint64_t{7};
  if (kept == size) return rec.size();

  uint8_t* p = sample.data();
  store_u64(p + size_at, kept);
  size_t end = size_at + 8 + kept;
  if (kept > 0) {
    store_u64(p + end, std::min(dyn, kept));
    end += 8;
  }
  std::memmove(p + end, p + rest_at, rec.size() - rest_at);
  const size_t new_size = end + (rec.size() - rest_at);
  auto h = load<RecordHeader>(p);
  h.size = static_cast<uint16_t>(new_size);
  std::memcpy(p, &h, sizeof h);
  return new_size;
}

bool set_sample_field(std::span<uint8_t> sample, uint64_t sample_type, uint64_t field, uint64_t value) {
  const int at = sample_field_offset(sample_type, field);
  if (at < 0 || sample.size() < sizeof(RecordHeader) + static_cast<size_t>(at) + 8) return false;
  store_u64(sample.data() + sizeof(RecordHeader) + at, value);
  return true;
}

}  // namespace sonde::format
