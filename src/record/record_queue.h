// The bounded user-space buffer between a drain thread (which empties the
// kernel's ring buffers as fast as it can) and the thread that writes,
// compresses and flushes. One producer, one consumer, lock-free on the fast
// path; a side waits on a condition variable only when the queue is full
// (producer) or empty (consumer). Its memory is allocated once, so moving a
// record through it never allocates.
//
// Entries are 8-aligned: an 8-byte EntryHeader (kind, tag, payload size),
// then the payload (a whole perf record for kRecord).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

namespace sonde::record {

enum class EntryKind : uint16_t {
  kRecord = 1,  // a perf record; tag = the source (ring) it came from
  kRound = 2,   // the drain thread ended a pass over its buffers
  kFinal = 3,   // the last pass: nothing follows
  kPad = 4,     // internal: skip to the start of the storage
};

struct EntryHeader {
  EntryKind kind;
  uint16_t tag;
  uint32_t size;  // payload bytes (8-aligned)
};
static_assert(sizeof(EntryHeader) == 8);

// The tag of a record that no ring produced (the drop policy's LOST_SAMPLES).
inline constexpr uint16_t kNoSource = 0xffff;

class RecordQueue {
 public:
  // `capacity` bytes of storage (rounded up to 8; at least kMinCapacity).
  explicit RecordQueue(size_t capacity);
  RecordQueue(const RecordQueue&) = delete;
  RecordQueue& operator=(const RecordQueue&) = delete;

  static constexpr size_t kMinCapacity = 256 * 1024;
  size_t capacity() const { return cap_; }
  // Bytes the producer may still use (a snapshot; the consumer only frees).
  size_t free_bytes() const;

  // Producer: a slot for a payload of `size` bytes (8-aligned), or an empty
  // span when it does not fit now. commit() publishes it; a waiting consumer
  // is woken by a marker (kRound, kFinal) or once a quarter of the queue is
  // used, so a producer ends each pass with a marker.
  std::span<uint8_t> try_reserve(size_t size);
  void commit(EntryKind kind, uint16_t tag);
  // Producer: as try_reserve, but waits for the consumer to make room.
  // Returns an empty span only once the consumer has closed the queue.
  std::span<uint8_t> reserve(size_t size);
  bool push(EntryKind kind, uint16_t tag, std::span<const uint8_t> payload);  // waits; false when closed

  // Consumer: the next entry, waiting up to `wait_ms` for one; nullptr when
  // none came. The payload follows the header. pop() releases it.
  const EntryHeader* front(int wait_ms);
  void pop();
  // Consumer: it stops consuming (after an error); a waiting producer wakes
  // and every later reserve() fails.
  void close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }
  // A snapshot: the producer is waiting in reserve() for room (tests wait
  // on it instead of sleeping).
  bool producer_waiting() const { return producer_waiting_.load(std::memory_order_acquire); }

 private:
  size_t contiguous_room(uint64_t head, uint64_t tail, size_t need, bool& wrap) const;
  void notify(std::atomic<bool>& waiting, std::condition_variable& cv);

  size_t cap_;
  std::unique_ptr<uint8_t[]> storage_;
  alignas(64) std::atomic<uint64_t> head_{0};  // written by the producer
  alignas(64) std::atomic<uint64_t> tail_{0};  // written by the consumer
  uint64_t reserved_at_ = 0;                   // producer: where the reserved slot's header is
  size_t reserved_size_ = 0;
  std::atomic<bool> closed_{false};
  std::mutex mu_;
  std::condition_variable space_cv_, data_cv_;
  std::atomic<bool> producer_waiting_{false}, consumer_waiting_{false};
};

}  // namespace sonde::record
