#include "util/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/fd.h"

namespace sonde {

std::optional<std::string> read_small_file(const std::string& path) {
  // Regular files only (procfs, sysfs and tracefs files are): some paths
  // come from recordings, and a FIFO there would hang the command.
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) return std::nullopt;
  std::string out;
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::optional<std::string> read_first_line(const std::string& path) {
  auto text = read_small_file(path);
  if (!text) return std::nullopt;
  auto nl = text->find('\n');
  if (nl != std::string::npos) text->resize(nl);
  return text;
}

std::optional<std::string> real_path(const std::string& path) {
  char* r = ::realpath(path.c_str(), nullptr);
  if (!r) return std::nullopt;
  std::string s(r);
  std::free(r);
  return s;
}

void make_dirs(const std::string& path) {
  if (path.empty()) return;
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw_runtime("cannot create directory {}: {}", cur, errno_text(errno));
  }
}

void write_file_atomic(const std::string& path, const std::string& data) {
  AtomicFile out(path);
  out.write(data);
  out.commit();
}

}  // namespace sonde
