// RAII owner of a file descriptor: closing is a destructor, not a code path.
#pragma once

#include <unistd.h>

#include <utility>

namespace sonde {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Opens `path` for reading only if it is a regular file. Paths that come
// from a recording can name anything on the reading machine: a FIFO would
// block the open (and the command) forever, /dev/zero would never end a
// read. Non-blocking open, then fstat; otherwise an invalid fd with errno
// set (EINVAL for "not a regular file").
UniqueFd open_regular_file(const char* path);

// Writes all of `data`, retrying on EINTR and short writes. Returns false and
// leaves errno set on failure.
bool write_all(int fd, const void* data, size_t size);

}  // namespace sonde
