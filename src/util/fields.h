// Blank-separated fields of a text line (/proc files, kallsyms, perf maps).
#pragma once

#include <string_view>

namespace sonde {

// The next field of `rest` (leading blanks skipped: spaces and tabs), removed
// from it; "" when only blanks are left.
inline std::string_view next_field(std::string_view& rest) {
  size_t b = rest.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(b);
  size_t e = rest.find_first_of(" \t");
  std::string_view f = rest.substr(0, e);
  rest.remove_prefix(e == std::string_view::npos ? rest.size() : e);
  return f;
}

}  // namespace sonde
