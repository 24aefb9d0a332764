#include "trace/fd_paths.h"

#include <unistd.h>

#include <climits>

#include <fmt/format.h>

namespace sonde::trace {

namespace {

// Descriptors are ints; anything else in a 64-bit argument is not one.
bool valid_fd(int64_t fd) { return fd >= 0 && fd <= INT_MAX; }

}  // namespace

const std::string* FdPaths::read_link(uint32_t pid, int64_t fd) {
  if (proc_root_.empty()) return nullptr;
  const std::string link = fmt::format("{}/{}/fd/{}", proc_root_, pid, fd);
  char buf[PATH_MAX];
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  // A path as long as the buffer may be cut: better none than a wrong one.
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return nullptr;
  auto [it, fresh] = paths_.insert_or_assign(key(pid, fd), std::string(buf, static_cast<size_t>(n)));
  return &it->second;
}

const std::string* FdPaths::find(uint32_t pid, int64_t fd) {
  if (!valid_fd(fd)) return nullptr;
  auto it = paths_.find(key(pid, fd));
  if (it != paths_.end()) return &it->second;
  return read_link(pid, fd);
}

void FdPaths::opened(uint32_t pid, int64_t fd, std::string_view path) {
  if (!valid_fd(fd)) return;
  paths_.erase(key(pid, fd));
  if (!path.starts_with('/') && read_link(pid, fd)) return;
  if (!path.empty()) paths_.insert_or_assign(key(pid, fd), std::string(path));
}

void FdPaths::duplicated(uint32_t pid, int64_t from, int64_t to) {
  if (!valid_fd(from) || !valid_fd(to) || from == to) return;
  paths_.erase(key(pid, to));
  const std::string* path = find(pid, from);
  if (!path) return;
  std::string copy = *path;  // inserting may rehash, moving what `path` points at
  paths_.insert_or_assign(key(pid, to), std::move(copy));
}

void FdPaths::closed(uint32_t pid, int64_t fd) {
  if (valid_fd(fd)) paths_.erase(key(pid, fd));
}

}  // namespace sonde::trace
