#include "process_args.h"

#include "util/error.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::cli {

std::vector<pid_t> parse_pids(const std::string& opt, const std::string& text) {
  std::vector<pid_t> out;
  size_t pos = 0;
  for (;;) {
    size_t c = text.find(',', pos);
    std::string item = text.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    auto v = parse_uint<uint64_t>(item);
    if (!v) throw_usage("invalid {} '{}': expected a positive integer", opt, item);
    if (v.value == 0 || v.value > 0x3fffffff) throw_usage("invalid {} '{}': not a process id", opt, item);
    out.push_back(static_cast<pid_t>(v.value));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

std::vector<std::string> own_cmdline() {
  std::vector<std::string> out;
  auto text = read_small_file("/proc/self/cmdline").value_or("");
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nul = text.find('\0', pos);
    if (nul == std::string::npos) nul = text.size();
    out.push_back(text.substr(pos, nul - pos));
    pos = nul + 1;
  }
  return out;
}

}  // namespace sonde::cli
