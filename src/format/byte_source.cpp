#include "format/byte_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace sonde::format {

namespace {
// 256 KiB: 150 read(2) calls for a 37 MB recording cost nothing measurable,
// and a 1 MiB buffer was 0.75 MB of a report's resident memory.
constexpr size_t kReadChunk = 256 << 10;
}

ByteSource::ByteSource(const std::string& path) {
  if (path == "-") {
    fd_.reset(::dup(STDIN_FILENO));
  } else {
    fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  }
  if (!fd_) throw_runtime("cannot open {}: {}", path == "-" ? "standard input" : path, errno_text(errno));
  inspect(path);
}

ByteSource::ByteSource(UniqueFd fd) : fd_(std::move(fd)) {
  if (!fd_) throw_runtime("cannot read the recording: no file descriptor");
  inspect("the recording");
}

void ByteSource::inspect(const std::string& path) {
  struct stat st {};
  if (::fstat(fd_.get(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw_runtime("cannot read {}: it is a directory", path);
    if (S_ISREG(st.st_mode)) {
      regular_ = true;
      file_size_ = static_cast<uint64_t>(st.st_size);
      ::posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  buf_.resize(kReadChunk);
}

ByteSource::~ByteSource() {
  if (map_) ::munmap(const_cast<uint8_t*>(map_), map_size_);
}

std::span<const uint8_t> ByteSource::whole() {
  if (!map_ && regular_ && file_size_ > 0) {
    void* m = ::mmap(nullptr, file_size_, PROT_READ, MAP_PRIVATE, fd_.get(), 0);
    if (m == MAP_FAILED) throw_runtime("cannot map the recording: {}", errno_text(errno));
    ::madvise(m, file_size_, MADV_SEQUENTIAL);
    map_ = static_cast<const uint8_t*>(m);
    map_size_ = file_size_;
  }
  return {map_, map_ ? map_size_ : 0};
}

void ByteSource::release_before(uint64_t offset) {
  if (!map_) return;
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t end = offset / page * page;
  // Release in large steps: one madvise per 16 MiB read.
  if (end < released_ + (16u << 20)) return;
  ::madvise(const_cast<uint8_t*>(map_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

bool ByteSource::ensure(size_t n) {
  if (available() >= n) return true;
  if (eof_) return false;
  return fill(n);
}

bool ByteSource::fill(size_t n) {
  // Move the unread tail to the front.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  // A length field asks for n bytes; only what the input can still deliver
  // is allocated. A regular file holds no more than what is left of it (a
  // record claiming 4 GiB in a 32-byte file costs nothing); a pipe's buffer
  // grows as its bytes arrive, at most doubling what has been read.
  size_t want = n;
  if (regular_) want = std::min<uint64_t>(n, end_ + remaining_in_file());
  while (end_ < n) {
    if (end_ == buf_.size()) {
      if (buf_.size() >= want) break;  // the file ends before n bytes
      buf_.resize(std::min(want, std::max(buf_.size() * 2, kReadChunk)));
    }
    ssize_t got = ::read(fd_.get(), buf_.data() + end_, buf_.size() - end_);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_runtime("cannot read the recording: {}", errno_text(errno));
    }
    if (got == 0) break;
    end_ += static_cast<size_t>(got);
  }
  if (end_ >= n) return true;
  eof_ = true;
  return false;
}

// Bytes of a regular file not read yet, asked of the file itself: it may
// have grown since it was opened (a recording still being written), and
// stdin may have been handed over at any position.
uint64_t ByteSource::remaining_in_file() const {
  struct stat st {};
  const off_t at = ::lseek(fd_.get(), 0, SEEK_CUR);
  if (at < 0 || ::fstat(fd_.get(), &st) != 0 || st.st_size <= at) return 0;
  return static_cast<uint64_t>(st.st_size - at);
}

}  // namespace sonde::format
