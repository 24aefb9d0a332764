#include "process_args.h"

#include "util/error.h"
#include "util/fs.h"

namespace sonde::cli {

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
