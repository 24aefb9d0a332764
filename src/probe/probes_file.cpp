#include "probe/probes_file.h"

#include "util/fs.h"

namespace sonde::probe {

std::vector<ProbesFileEntry> parse_probes_file(const std::string& text) {
  std::vector<ProbesFileEntry> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    if (line[0] == '#' || line[0] == '%') {
      out.push_back({line[0] == '%', line.substr(1), {}});
    } else if (!out.empty()) {
      out.back().lines.push_back(line);
    }
  }
  return out;
}

std::string format_probes_file(const std::vector<ProbesFileEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    out += (e.sdt ? "%" : "#") + e.spec + "\n";
    for (const auto& l : e.lines) out += l + "\n";
  }
  return out;
}

std::vector<ProbesFileEntry> read_probes_file(const std::string& dir) {
  auto text = read_small_file(dir + "/probes");
  return text ? parse_probes_file(*text) : std::vector<ProbesFileEntry>{};
}

void write_probes_file(const std::string& dir, const std::vector<ProbesFileEntry>& entries) {
  write_file_atomic(dir + "/probes", format_probes_file(entries));
}

}  // namespace sonde::probe
