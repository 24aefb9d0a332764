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

}  // namespace sonde::cli
