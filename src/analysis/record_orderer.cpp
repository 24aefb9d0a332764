#include "analysis/record_orderer.h"

#include <algorithm>
#include <cstring>

#include "format/record_framing.h"
#include "util/byte_reader.h"
#include "util/error.h"

namespace sonde::analysis {

using namespace sonde::format;

RecordOrderer::RecordOrderer(RecordReader& reader, Progress progress) : reader_(reader), progress_(std::move(progress)) {
  thread_ = std::thread([this] { read_all(); });
}

RecordOrderer::~RecordOrderer() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t delivery_time(const Session& session, const RecordView& rec) {
  if (rec.header.type == kSample) return session.sample_time(rec);
  if (rec.header.type > kMaxKernelType) return 0;
  SampleId sid;
  if (session.decode_sample_id(rec, sid)) return sid.time;
  return 0;
}

void RecordOrderer::recycle(Chunk* c) {
  if (c->capacity == kChunkSize) {
    c->pooled = true;
    free_.push_back(c);
  } else {
    c->bytes.reset();  // a record of its own: give the memory back
    c->capacity = 0;
  }
}

void RecordOrderer::retire(Chunk* c) {
  if (!c) return;
  std::lock_guard lock(pool_mu_);
  c->retired = true;
  if (c->live.load(std::memory_order_acquire) == 0 && !c->pooled) recycle(c);
}

void RecordOrderer::release(Chunk* c, uint32_t records) {
  if (c->live.fetch_sub(records, std::memory_order_acq_rel) != records) return;
  std::lock_guard lock(pool_mu_);
  if (c->retired && !c->pooled && c->live.load(std::memory_order_acquire) == 0) recycle(c);
}

RecordOrderer::Ref RecordOrderer::store(const RecordView& rec) {
  const size_t size = rec.bytes.size(), total = size + rec.trailing.size();
  if (rec.trailing.size() > UINT32_MAX) throw_runtime("a record at offset {:#x} carries {} bytes", rec.offset, rec.trailing.size());
  Chunk* c = current_;
  if (total > kChunkSize) {
    // A record of its own (tracing data, AUX payloads): never current.
    std::lock_guard lock(pool_mu_);
    chunks_.push_back(std::make_unique<Chunk>());
    c = chunks_.back().get();
    c->bytes = std::make_unique_for_overwrite<uint8_t[]>(total);
    c->capacity = total;
    c->retired = true;
  } else if (!c || c->used + total > c->capacity) {
    retire(c);
    std::lock_guard lock(pool_mu_);
    if (!free_.empty()) {
      c = free_.back();
      free_.pop_back();
    } else {
      chunks_.push_back(std::make_unique<Chunk>());
      c = chunks_.back().get();
      c->bytes = std::make_unique_for_overwrite<uint8_t[]>(kChunkSize);
      c->capacity = kChunkSize;
    }
    c->pooled = c->retired = false;
    c->used = 0;
    current_ = c;
  }
  uint8_t* at = c->bytes.get() + c->used;
  std::memcpy(at, rec.bytes.data(), size);
  if (!rec.trailing.empty()) std::memcpy(at + size, rec.trailing.data(), rec.trailing.size());
  c->used += total;
  c->live.fetch_add(1, std::memory_order_relaxed);
  return {at, c, rec.offset, static_cast<uint32_t>(size), static_cast<uint32_t>(rec.trailing.size())};
}

void RecordOrderer::publish(bool last) {
  std::unique_lock lock(mu_);
  if (!stop_ && ready_.size() >= kMaxReadyBatches) {
    reader_waiting_ = true;
    changed_.wait(lock, [&] { return stop_ || ready_.size() < kMaxReadyBatches; });
    reader_waiting_ = false;
  }
  if (!building_.empty()) ready_.push_back(std::move(building_));
  building_ = {};
  building_bytes_ = 0;
  if (last) done_ = true;
  // A wake-up is a system call: only when the caller waits for this.
  const bool wake = caller_waiting_;
  lock.unlock();
  if (wake) changed_.notify_all();
}

// A caller that waits for records gets what a round released at once, not
// when a batch fills: a live reader (`sonde top`, reading a recorder's pipe)
// would otherwise see its samples seconds late. A busy caller (a report of
// a file) still gets whole batches.
void RecordOrderer::publish_if_awaited() {
  {
    std::lock_guard lock(mu_);
    if (!caller_waiting_ || building_.empty()) return;
  }
  publish(false);
}

void RecordOrderer::emit(const Ref& r) {
  building_.push_back(r);
  building_bytes_ += r.size + r.trailing;
  if (building_.size() >= kBatch || building_bytes_ >= kBatchBytes) publish(false);
}

void RecordOrderer::flush_until(uint64_t limit) {
  if (queue_.empty()) return;
  auto mid = std::stable_partition(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.time <= limit; });
  std::stable_sort(queue_.begin(), mid, [](const Queued& a, const Queued& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  });
  for (auto it = queue_.begin(); it != mid; ++it) emit(it->ref);
  // The rest waits for a later round (moved to the front: no second queue).
  queue_.erase(queue_.begin(), mid);
}

void RecordOrderer::read_all() {
  try {
    RecordView rec;
    while (!stopping_.load(std::memory_order_relaxed) && reader_.next(rec)) {
      ++stats_.records;
      if (progress_ && (stats_.records & 0xffff) == 0) progress_(reader_.position(), reader_.input_size());
      // Metadata is taken at once, here for timestamps and by the caller
      // for everything else.
      if (session_.observe(rec)) {
        emit(store(rec));
        continue;
      }
      if (rec.header.type == kFinishedRound) {
        flush_until(limit_);
        limit_ = max_time_;
        publish_if_awaited();
        continue;
      }
      if (rec.header.type > kMaxUserType || (rec.header.type > kMaxKernelType && rec.header.type < kHeaderAttr))
        continue;  // unknown: counted by the reader, skipped here
      uint64_t t = delivery_time(session_, rec);
      // A merged directory comes in time order already (analysis/directory_reader.h).
      if (t == 0 || t == UINT64_MAX || rec.header.type >= kHeaderAttr || reader_.time_ordered()) {
        emit(store(rec));
        continue;
      }
      max_time_ = std::max(max_time_, t);
      queue_.push_back({t, seq_++, store(rec)});
    }
    flush_until(UINT64_MAX);
    stats_.truncated_bytes = reader_.truncated_bytes();
    stats_.stop_error = reader_.error();
    stats_.unknown_records = reader_.unknown_records();
    if (progress_) progress_(reader_.position(), reader_.input_size());
  } catch (...) {
    failure_ = std::current_exception();
  }
  publish(true);
}

bool RecordOrderer::next_batch(std::vector<RecordView>& out) {
  out.clear();
  // The previous batch is done with: its chunks may be reused. Consecutive
  // records mostly share a chunk, so release them a run at a time.
  for (size_t i = 0; i < taken_.size();) {
    size_t j = i + 1;
    while (j < taken_.size() && taken_[j].chunk == taken_[i].chunk) ++j;
    release(taken_[i].chunk, static_cast<uint32_t>(j - i));
    i = j;
  }
  taken_.clear();
  std::unique_lock lock(mu_);
  if (ready_.empty() && !done_) {
    caller_waiting_ = true;
    changed_.wait(lock, [&] { return !ready_.empty() || done_; });
    caller_waiting_ = false;
  }
  if (ready_.empty()) {
    if (failure_) std::rethrow_exception(failure_);
    return false;
  }
  taken_ = std::move(ready_.front());
  ready_.pop_front();
  const bool wake = reader_waiting_;
  lock.unlock();
  if (wake) changed_.notify_all();
  out.reserve(taken_.size());
  for (const Ref& r : taken_)
    out.push_back(RecordView{load<RecordHeader>(r.bytes), {r.bytes, r.size}, {r.bytes + r.size, r.trailing}, r.offset});
  return true;
}

}  // namespace sonde::analysis
