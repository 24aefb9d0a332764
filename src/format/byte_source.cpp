#include "format/byte_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace sonde::perf {

ByteSource::ByteSource(const std::string& path) {
  if (path == "-") {
    fd_.reset(::dup(STDIN_FILENO));
  } else {
    fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  }
  if (!fd_) throw_runtime("cannot open {}: {}", path == "-" ? "standard input" : path, errno_text(errno));
  struct stat st {};
  if (::fstat(fd_.get(), &st) == 0 && S_ISDIR(st.st_mode)) throw_runtime("cannot read {}: it is a directory", path);
  if (::fstat(fd_.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd_.get(), 0);
    if (m != MAP_FAILED) {
      ::madvise(m, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
      map_ = static_cast<const uint8_t*>(m);
      map_size_ = static_cast<size_t>(st.st_size);
      end_ = map_size_;
      eof_ = true;
      return;
    }
  }
  buf_.resize(1 << 20);
}

ByteSource::~ByteSource() {
  if (map_) ::munmap(const_cast<uint8_t*>(map_), map_size_);
}

bool ByteSource::ensure(size_t n) {
  if (available() >= n) return true;
  if (map_ || eof_) return false;
  return fill(n);
}

bool ByteSource::fill(size_t n) {
  // Move the unread tail to the front, grow if one record needs more room.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (buf_.size() < n) buf_.resize(n);
  while (end_ < n) {
    ssize_t got = ::read(fd_.get(), buf_.data() + end_, buf_.size() - end_);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_runtime("cannot read the recording: {}", errno_text(errno));
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace sonde::perf
