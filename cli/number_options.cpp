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

uint32_t parse_call_graph(const std::string& text) {
  if (text == "fp" || text == "lbr" || text == "cfi") return 0;
  if (text == "dwarf") return 8192;
  if (text.rfind("dwarf,", 0) == 0) {
    uint64_t size = parse_u64("--call-graph dwarf,SIZE", text.substr(6));
    // The kernel takes a multiple of 8 below 64 KiB (a sample's u16 size).
    if (size == 0 || size % 8 || size > 65528)
      throw_usage("invalid --call-graph '{}': the stack size must be a multiple of 8 from 8 to 65528", text);
    return static_cast<uint32_t>(size);
  }
  throw_usage("unsupported --call-graph '{}' (fp, dwarf[,SIZE], cfi or lbr)", text);
}

}  // namespace sonde::cli
