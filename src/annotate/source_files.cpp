#include "annotate/source_files.h"

#include <fstream>

namespace sonde::annotate {

namespace {

// perf's listing shows source lines with leading blanks taken off and
// tabs expanded.
std::string tidy(const std::string& raw) {
  size_t first = raw.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out;
  for (size_t i = first; i < raw.size(); ++i) {
    if (raw[i] == '\t') {
      out.append(8 - out.size() % 8, ' ');
    } else if (raw[i] != '\r') {
      out += raw[i];
    }
  }
  return out;
}

}  // namespace

const std::string* SourceFiles::line(const std::string& path, uint32_t line) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    // A source file is text a person wrote; a 64 MiB cap keeps a path
    // that names something else from costing more than a glance.
    size_t bytes = 0;
    for (std::string l; bytes < (64u << 20) && std::getline(in, l);) bytes += l.size() + 1, lines.push_back(tidy(l));
    it = files_.emplace(path, std::move(lines)).first;
  }
  if (line == 0 || line > it->second.size()) return nullptr;
  return &it->second[line - 1];
}

}  // namespace sonde::annotate
