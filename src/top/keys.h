// The keys `sonde top` understands, decoded from what a terminal in raw mode
// sends: plain bytes, and the ANSI escape sequences of the arrow and page
// keys (both the normal "ESC [ A" and the application-mode "ESC O A" form).
#pragma once

#include <string_view>
#include <vector>

namespace sonde::top {

enum class Key { kUp, kDown, kPageUp, kPageDown, kHome, kEnd, kEnter, kEscape, kQuit, kChar };

struct KeyPress {
  Key key = Key::kChar;
  char ch = 0;  // for kChar
  bool operator==(const KeyPress&) const = default;
};

// Appends the keys in `bytes` to `out`. An escape sequence this does not
// know is skipped whole; a lone ESC is kEscape; Ctrl-C (raw mode sends it
// as a byte, not a signal) is kQuit.
void decode_keys(std::string_view bytes, std::vector<KeyPress>& out);

}  // namespace sonde::top
