#include "record/record_queue.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

namespace sonde::record {

namespace {

constexpr size_t kHeader = sizeof(EntryHeader);
// A waiter re-checks at least this often: a missed wake-up costs a delay,
// never a hang.
constexpr auto kWaitSlice = std::chrono::milliseconds(20);

}  // namespace

RecordQueue::RecordQueue(size_t capacity)
    : cap_((std::max(capacity, kMinCapacity) + 7) & ~size_t{7}), storage_(new uint8_t[cap_]) {}

size_t RecordQueue::free_bytes() const {
  return cap_ - static_cast<size_t>(head_.load(std::memory_order_relaxed) - tail_.load(std::memory_order_acquire));
}

std::span<uint8_t> RecordQueue::try_reserve(size_t size) {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  const uint64_t tail = tail_.load(std::memory_order_acquire);
  const size_t free = cap_ - static_cast<size_t>(head - tail);
  const size_t at = static_cast<size_t>(head % cap_);
  const size_t need = kHeader + size;
  if (at + need <= cap_) {
    if (free < need) return {};
    reserved_at_ = head;
  } else {
    // Does not fit before the end: a pad entry skips to the start.
    const size_t skip = cap_ - at;
    if (free < skip + need) return {};
    EntryHeader pad{EntryKind::kPad, 0, static_cast<uint32_t>(skip - kHeader)};
    std::memcpy(storage_.get() + at, &pad, kHeader);
    reserved_at_ = head + skip;
  }
  reserved_size_ = size;
  return {storage_.get() + reserved_at_ % cap_ + kHeader, size};
}

void RecordQueue::commit(EntryKind kind, uint16_t tag) {
  EntryHeader h{kind, tag, static_cast<uint32_t>(reserved_size_)};
  std::memcpy(storage_.get() + reserved_at_ % cap_, &h, kHeader);
  head_.store(reserved_at_ + kHeader + reserved_size_, std::memory_order_seq_cst);
  // A sleeping consumer is woken by a pass's marker, or once a quarter of
  // the queue waits for it, not by every record: woken per record, it
  // caught up, slept and was woken again, and the hand-off doubled the
  // recorder's CPU per sample (bench/record.sh).
  if (consumer_waiting_.load(std::memory_order_seq_cst) && (kind != EntryKind::kRecord || cap_ - free_bytes() >= cap_ / 4))
    notify(consumer_waiting_, data_cv_);
}

std::span<uint8_t> RecordQueue::reserve(size_t size) {
  for (;;) {
    if (closed()) return {};
    if (auto s = try_reserve(size); !s.empty() || size == 0) {
      if (size == 0) return {storage_.get(), 0};
      return s;
    }
    std::unique_lock lock(mu_);
    producer_waiting_.store(true, std::memory_order_seq_cst);
    if (try_reserve(size).empty() && !closed()) space_cv_.wait_for(lock, kWaitSlice);
    producer_waiting_.store(false, std::memory_order_relaxed);
  }
}

bool RecordQueue::push(EntryKind kind, uint16_t tag, std::span<const uint8_t> payload) {
  const size_t size = (payload.size() + 7) & ~size_t{7};
  std::span<uint8_t> slot = reserve(size);
  if (closed()) return false;
  if (!payload.empty()) std::memcpy(slot.data(), payload.data(), payload.size());
  if (size > payload.size()) std::memset(slot.data() + payload.size(), 0, size - payload.size());
  commit(kind, tag);
  return true;
}

const EntryHeader* RecordQueue::front(int wait_ms) {
  // The clock is read only once the queue is empty: a writer calls front()
  // per record, and a clock_gettime each was 15% of the recorder's CPU.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  for (;;) {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail != head_.load(std::memory_order_acquire)) {
      auto* h = reinterpret_cast<const EntryHeader*>(storage_.get() + tail % cap_);
      if (h->kind != EntryKind::kPad) return h;
      tail_.store(tail + kHeader + h->size, std::memory_order_seq_cst);
      continue;
    }
    if (wait_ms <= 0) return nullptr;
    const auto now = std::chrono::steady_clock::now();
    if (!deadline) deadline = now + std::chrono::milliseconds(wait_ms);
    else if (now >= *deadline) return nullptr;
    std::unique_lock lock(mu_);
    consumer_waiting_.store(true, std::memory_order_seq_cst);
    if (tail == head_.load(std::memory_order_seq_cst)) data_cv_.wait_until(lock, std::min(*deadline, now + kWaitSlice));
    consumer_waiting_.store(false, std::memory_order_relaxed);
  }
}

void RecordQueue::pop() {
  uint64_t tail = tail_.load(std::memory_order_relaxed);
  auto* h = reinterpret_cast<const EntryHeader*>(storage_.get() + tail % cap_);
  tail_.store(tail + kHeader + h->size, std::memory_order_seq_cst);
  notify(producer_waiting_, space_cv_);
}

void RecordQueue::close() {
  closed_.store(true, std::memory_order_seq_cst);
  std::lock_guard lock(mu_);
  space_cv_.notify_all();
}

void RecordQueue::notify(std::atomic<bool>& waiting, std::condition_variable& cv) {
  if (!waiting.load(std::memory_order_seq_cst)) return;
  std::lock_guard lock(mu_);
  cv.notify_all();
}

}  // namespace sonde::record
