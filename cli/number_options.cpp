#include "number_options.h"

#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::cli {

// Any u64; the options' own ranges are checked by the callers, each with its
// own message.
uint64_t parse_u64(const std::string& opt, const std::string& text) {
  auto v = parse_uint<uint64_t>(text);
  if (!v) throw_usage("invalid {} '{}': expected a positive integer", opt, text);
  return v.value;
}

std::vector<pid_t> parse_pids(const std::string& opt, const std::string& text) {
  std::vector<pid_t> out;
  size_t pos = 0;
  for (;;) {
    size_t c = text.find(',', pos);
    std::string item = text.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    uint64_t v = parse_u64(opt, item);
    if (v == 0 || v > 0x3fffffff) throw_usage("invalid {} '{}': not a process id", opt, item);
    out.push_back(static_cast<pid_t>(v));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

}  // namespace sonde::cli
