// One perf ring buffer: the metadata page plus 2^n data pages, drained in
// place. A record is handed out as a view into the mapping; only a record
// that wraps the end of the buffer is copied, into a scratch area allocated
// once, so draining never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "format/perf_abi.h"
#include "format/uapi/perf_event.h"

namespace sonde::record {

class RingBuffer {
 public:
  // Maps fd's ring buffer with `data_pages` data pages (a power of two).
  // Throws a runtime error on failure.
  RingBuffer(int fd, size_t data_pages);
  ~RingBuffer();
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  int fd() const { return fd_; }

  // Calls fn(std::span<const uint8_t>) for every complete record currently in
  // the buffer, then releases the space to the kernel. The view is valid only
  // during the call. Returns the bytes consumed.
  template <typename Fn>
  size_t drain(Fn&& fn) {
    uint64_t head = __atomic_load_n(&meta_->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta_->data_tail;
    const uint64_t start = tail;
    while (tail < head) {
      size_t off = static_cast<size_t>(tail & mask_);
      // Records are 8-aligned and the data area is a multiple of 8, so a
      // header never straddles the end.
      format::RecordHeader h;
      std::memcpy(&h, data_ + off, sizeof h);
      if (h.size < sizeof h || tail + h.size > head) break;  // corrupt: never loop forever
      if (off + h.size <= size_) {
        fn(std::span<const uint8_t>(data_ + off, h.size));
      } else {
        size_t first = size_ - off;
        std::memcpy(scratch_.data(), data_ + off, first);
        std::memcpy(scratch_.data() + first, data_, h.size - first);
        fn(std::span<const uint8_t>(scratch_.data(), h.size));
      }
      tail += h.size;
    }
    if (tail != start) __atomic_store_n(&meta_->data_tail, tail, __ATOMIC_RELEASE);
    if (tail < head) {
      // A corrupt header: drop the rest so the kernel can keep writing.
      __atomic_store_n(&meta_->data_tail, head, __ATOMIC_RELEASE);
      return static_cast<size_t>(head - start);
    }
    return static_cast<size_t>(tail - start);
  }

 private:
  int fd_;
  void* base_ = nullptr;
  size_t map_len_ = 0;
  perf_event_mmap_page* meta_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t mask_ = 0;
  std::vector<uint8_t> scratch_;
};

}  // namespace sonde::record
