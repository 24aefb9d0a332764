#include "report/recording_walker.h"

#include <cstring>

#include "util/byte_reader.h"

namespace sonde::report {

using namespace sonde::perf;

uint64_t RecordingWalker::record_time(const RecordView& rec) const {
  if (rec.header.type == kSample) return session_.sample_time(rec);
  if (rec.header.type > kMaxKernelType) return 0;
  SampleId sid;
  if (session_.decode_sample_id(rec, sid)) return sid.time;
  return 0;
}

void RecordingWalker::deliver(const RecordView& rec, const SampleFn& on_sample, const RecordFn& on_record) {
  switch (rec.header.type) {
    case kSample: {
      std::string why;
      if (session_.decode_sample(rec, sample_, &why)) {
        ++stats_.samples;
        on_sample(sample_);
      } else {
        if (stats_.bad_samples++ == 0) stats_.first_bad_sample = why;
      }
      return;
    }
    case kLost:
      if (rec.bytes.size() >= sizeof(Lost)) stats_.lost_samples += load<uint64_t>(rec.bytes.data() + 16);
      break;
    case kLostSamples:
      if (rec.bytes.size() >= sizeof(LostSamples)) stats_.lost_samples += load<uint64_t>(rec.bytes.data() + 8);
      break;
    default:
      break;
  }
  space_.on_record(rec);
  if (on_record) on_record(rec);
}

RecordingWalker::Queued RecordingWalker::store(const RecordView& rec, uint64_t time) {
  const uint32_t size = static_cast<uint32_t>(rec.bytes.size());  // at most 64 KiB: a u16 header size
  if (current_ == UINT32_MAX || chunks_[current_].used + size > kChunkSize) {
    uint32_t old = current_;
    if (!free_chunks_.empty()) {
      current_ = free_chunks_.back();
      free_chunks_.pop_back();
    } else {
      current_ = static_cast<uint32_t>(chunks_.size());
      chunks_.push_back({std::make_unique<uint8_t[]>(kChunkSize), 0, 0});
    }
    chunks_[current_].used = 0;
    if (old != UINT32_MAX && chunks_[old].live == 0) free_chunks_.push_back(old);
  }
  Chunk& c = chunks_[current_];
  std::memcpy(c.bytes.get() + c.used, rec.bytes.data(), size);
  Queued q{time, seq_++, current_, c.used, size};
  c.used += size;
  c.live += 1;
  return q;
}

void RecordingWalker::release(uint32_t chunk) {
  if (--chunks_[chunk].live == 0 && chunk != current_) free_chunks_.push_back(chunk);
}

void RecordingWalker::flush_until(uint64_t limit, const SampleFn& on_sample, const RecordFn& on_record) {
  if (queue_.empty()) return;
  auto mid = std::stable_partition(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.time <= limit; });
  std::stable_sort(queue_.begin(), mid, [](const Queued& a, const Queued& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  });
  for (auto it = queue_.begin(); it != mid; ++it) {
    const uint8_t* p = chunks_[it->chunk].bytes.get() + it->offset;
    RecordView rec{load<RecordHeader>(p), {p, it->size}, {}, 0};
    deliver(rec, on_sample, on_record);
    release(it->chunk);
  }
  // The rest waits for a later round, in place.
  rest_.assign(mid, queue_.end());
  queue_.swap(rest_);
}

void RecordingWalker::run(const SampleFn& on_sample, const RecordFn& on_record,
                          const std::function<void(uint64_t, uint64_t)>& progress) {
  RecordView rec;
  while (reader_.next(rec)) {
    ++stats_.records;
    if (progress && (stats_.records & 0xffff) == 0) progress(reader_.position(), reader_.input_size());
    if (session_.observe(rec)) {
      if (rec.header.type == kHeaderBuildId) space_.on_record(rec);
      continue;
    }
    if (rec.header.type == kFinishedRound) {
      flush_until(limit_, on_sample, on_record);
      limit_ = max_time_;
      continue;
    }
    if (rec.header.type > kMaxUserType || (rec.header.type > kMaxKernelType && rec.header.type < kHeaderAttr)) {
      continue;  // unknown: counted by the reader, skipped here
    }
    uint64_t t = record_time(rec);
    if (t == 0 || t == UINT64_MAX || rec.header.type >= kHeaderAttr) {
      deliver(rec, on_sample, on_record);
      continue;
    }
    max_time_ = std::max(max_time_, t);
    queue_.push_back(store(rec, t));
  }
  flush_until(UINT64_MAX, on_sample, on_record);
  stats_.truncated_bytes = reader_.truncated_bytes();
  stats_.stop_error = reader_.error();
  stats_.unknown_records = reader_.unknown_records();
  if (progress) progress(reader_.position(), reader_.input_size());
}

}  // namespace sonde::report
