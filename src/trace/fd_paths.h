// The file behind a descriptor of a traced process, as perf trace shows it:
// `write(fd: 3</etc/passwd>, ...)`.
//
// Learned from the path an open call was given (read at its entry by BPF)
// and, while tracing live, from /proc/PID/fd/N the first time a descriptor is
// met (perf trace's thread__read_fd_path); forgotten when it is closed. A
// replay reads no /proc: the traced processes are gone, or are other
// processes by now, so it knows only what the recording's open calls said
// (perf trace -i does the same).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sonde::trace {

class FdPaths {
 public:
  // `proc_root` is "/proc" when live, "" when replaying (no lookups).
  explicit FdPaths(std::string proc_root) : proc_root_(std::move(proc_root)) {}

  // The path of descriptor `fd` of process `pid`, nullptr if unknown.
  const std::string* find(uint32_t pid, int64_t fd);
  // An open call of `pid` returned `fd` for `path` (as the program gave it;
  // a relative one is resolved through /proc while live).
  void opened(uint32_t pid, int64_t fd, std::string_view path);
  // dup/dup2/dup3 made `to` a copy of `from`.
  void duplicated(uint32_t pid, int64_t from, int64_t to);
  void closed(uint32_t pid, int64_t fd);

 private:
  static uint64_t key(uint32_t pid, int64_t fd) { return (uint64_t{pid} << 32) | static_cast<uint32_t>(fd); }
  const std::string* read_link(uint32_t pid, int64_t fd);

  std::string proc_root_;
  std::unordered_map<uint64_t, std::string> paths_;
};

}  // namespace sonde::trace
