#include "inject/passthrough.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.h"
#include "util/fd.h"

namespace sonde::inject {

namespace {

// read(2) until `size` bytes or the end; -1 on an error.
ssize_t read_full(int fd, uint8_t* buf, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

uint64_t pass_through(const std::string& input, const std::string& output) {
  UniqueFd in_owned;
  int in = STDIN_FILENO;
  if (input != "-") {
    in_owned = UniqueFd(::open(input.c_str(), O_RDONLY | O_CLOEXEC));
    if (!in_owned) throw_runtime("cannot open {}: {}", input, errno_text(errno));
    in = in_owned.get();
  }
  std::vector<uint8_t> buf(1 << 20);
  ssize_t n = read_full(in, buf.data(), buf.size());
  if (n < 0) throw_runtime("cannot read {}: {}", input, errno_text(errno));
  if (n < 8 || std::memcmp(buf.data(), "PERFILE2", 8) != 0)
    throw_usage("{} is not a perf.data recording (no PERFILE2 magic)", input == "-" ? "standard input" : input);
  UniqueFd out_owned;
  int out = STDOUT_FILENO;
  if (output != "-") {
    out_owned = UniqueFd(::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!out_owned) throw_runtime("cannot create {}: {}", output, errno_text(errno));
    out = out_owned.get();
  }
  uint64_t total = 0;
  while (n > 0) {
    if (!write_all(out, buf.data(), static_cast<size_t>(n)))
      throw_runtime("cannot write {}: {}", output == "-" ? "standard output" : output, errno_text(errno));
    total += static_cast<uint64_t>(n);
    n = read_full(in, buf.data(), buf.size());
    if (n < 0) throw_runtime("cannot read {}: {}", input, errno_text(errno));
  }
  return total;
}

}  // namespace sonde::inject
