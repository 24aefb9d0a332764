#include "jit/jit_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd.h"

namespace sonde::jit {

namespace {

std::string_view file_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<uint32_t> pid_between(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() <= prefix.size() + suffix.size())
    return std::nullopt;
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  uint32_t pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9' || pid > (UINT32_MAX - 9) / 10) return std::nullopt;
    pid = pid * 10 + static_cast<uint32_t>(c - '0');
  }
  return pid;
}

}  // namespace

std::optional<uint32_t> jitdump_pid(std::string_view path) { return pid_between(file_name(path), "jit-", ".dump"); }
std::optional<uint32_t> perf_map_pid(std::string_view path) { return pid_between(file_name(path), "perf-", ".map"); }

std::string jit_dir_for(std::string_view recording_path) { return std::string(recording_path) + ".jit"; }

std::string find_jit_file(std::string_view recorded_path, const std::vector<std::string>& copy_dirs) {
  const std::string name(file_name(recorded_path));
  for (const auto& dir : copy_dirs) {
    std::string copy = dir + "/" + name;
    struct stat st {};
    if (::stat(copy.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return copy;
  }
  return std::string(recorded_path);
}

bool read_jit_file(const std::string& path, uint64_t max_bytes, std::string& out, std::string* why) {
  UniqueFd fd = open_regular_file(path.c_str());
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    if (why) *why = path + ": " + std::strerror(errno);
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    if (why) *why = path + ": " + std::to_string(st.st_size) + " bytes, over the " + std::to_string(max_bytes) + " read";
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(fd.get(), out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);  // a file that shrank meanwhile: what was there
  return true;
}

}  // namespace sonde::jit
