// Building separated lists of names ("a|b|c") one item at a time.
#pragma once

#include <string>
#include <string_view>

namespace sonde {

// Appends `item` to `out`, after `sep` when `out` is not empty. Appending in
// two steps, rather than `out += sep + std::string(item)`, also keeps gcc 12
// at -O3 from a false -Wrestrict on the inlined temporary's memcpy.
inline void append_separated(std::string& out, std::string_view sep, std::string_view item) {
  if (!out.empty()) out += sep;
  out += item;
}

}  // namespace sonde
