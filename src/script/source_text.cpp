#include "script/source_text.h"

#include <sys/stat.h>

#include "util/fd.h"

namespace sonde::script {

namespace {

// Source files are small; one larger than this is not a source file.
constexpr off_t kMaxSourceBytes = 64 << 20;

bool read_source(const std::string& path, std::string& out) {
  UniqueFd fd = open_regular_file(path.c_str());
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0 || st.st_size > kMaxSourceBytes) return false;
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd.get(), out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  out.resize(done);  // a file that shrank while read: the lines that remain
  return true;
}

}  // namespace

std::optional<std::string_view> SourceText::line(const std::string& path, uint32_t line) {
  auto [it, fresh] = files_.try_emplace(path);
  File& f = it->second;
  if (fresh) {
    f.readable = read_source(path, f.text);
    if (f.readable && !f.text.empty()) f.starts.push_back(0);
    for (size_t at = f.text.find('\n'); at != std::string::npos && at + 1 < f.text.size(); at = f.text.find('\n', at + 1))
      f.starts.push_back(at + 1);
  }
  if (!f.readable || line == 0 || line > f.starts.size()) return std::nullopt;
  const size_t start = f.starts[line - 1];
  const size_t end = f.text.find('\n', start);
  return std::string_view(f.text).substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace sonde::script
