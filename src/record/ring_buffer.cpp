#include "record/ring_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "util/error.h"

namespace sonde::record {

RingBuffer::RingBuffer(int fd, size_t data_pages) : fd_(fd), scratch_(65536) {
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  map_len_ = (data_pages + 1) * page;
  base_ = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    int err = errno;
    if (err == EPERM || err == ENOMEM)
      throw_runtime("cannot map a {}-page ring buffer: {} (try a smaller -m or raise perf_event_mlock_kb)",
                    data_pages, errno_text(err));
    throw_runtime("cannot map a {}-page ring buffer: {}", data_pages, errno_text(err));
  }
  meta_ = static_cast<perf_event_mmap_page*>(base_);
  data_ = static_cast<uint8_t*>(base_) + page;
  size_ = data_pages * page;
  mask_ = size_ - 1;
}

RingBuffer::~RingBuffer() {
  if (base_) ::munmap(base_, map_len_);
}

}  // namespace sonde::record
