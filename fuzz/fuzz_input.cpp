#include "fuzz_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace sonde::fuzz {

namespace {

void write_all(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n <= 0) return;  // a full pipe: the rest is dropped
    data += n;
    size -= static_cast<size_t>(n);
  }
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::abort();
}

}  // namespace

InputFile::InputFile(const uint8_t* data, size_t size, Kind kind) {
  if (kind == kRegular) {
    fd_ = ::memfd_create("fuzz-input", MFD_CLOEXEC);
    if (fd_ < 0) die("memfd_create");
    write_all(fd_, data, size);
    ::lseek(fd_, 0, SEEK_SET);
  } else {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) die("pipe2");
    ::fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    write_all(p[1], data, size);
    ::close(p[1]);
    ::fcntl(p[0], F_SETFL, 0);  // the reader blocks, as on a real pipe
    fd_ = p[0];
    // Opening a pipe by its /proc path would wait for a writer: it is
    // handed over as standard input ("-"), as `cat F | sonde script -` does.
    saved_stdin_ = ::dup(STDIN_FILENO);
    ::dup2(fd_, STDIN_FILENO);
    path_ = "-";
    return;
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

InputFile::~InputFile() {
  if (saved_stdin_ >= 0) {
    ::dup2(saved_stdin_, STDIN_FILENO);
    ::close(saved_stdin_);
  }
  ::close(fd_);
}

}  // namespace sonde::fuzz
