// A fuzz input as a path sonde's readers can open, as a user would hand it
// one: a regular file (a memfd, seen through /proc/self/fd) or a pipe (then
// the path is "-": the pipe is standard input while the InputFile lives).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sonde::fuzz {

class InputFile {
 public:
  enum Kind { kRegular, kPipe };
  // A pipe holds at most its capacity (1 MiB asked): the rest is dropped,
  // since nothing reads it while it is being written.
  InputFile(const uint8_t* data, size_t size, Kind kind = kRegular);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  int saved_stdin_ = -1;
  std::string path_;
};

}  // namespace sonde::fuzz
