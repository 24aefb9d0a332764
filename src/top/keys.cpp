#include "top/keys.h"

namespace sonde::top {

namespace {

constexpr char kEsc = 0x1b;
constexpr char kCtrlC = 0x03;

// The key of a CSI or SS3 sequence's final byte, with its numeric parameter
// ("5~" is Page Up); false for one this does not know.
bool sequence_key(char final, std::string_view param, Key& key) {
  switch (final) {
    case 'A': key = Key::kUp; return true;
    case 'B': key = Key::kDown; return true;
    case 'H': key = Key::kHome; return true;
    case 'F': key = Key::kEnd; return true;
    case '~':
      if (param == "5") key = Key::kPageUp;
      else if (param == "6") key = Key::kPageDown;
      else if (param == "1" || param == "7") key = Key::kHome;
      else if (param == "4" || param == "8") key = Key::kEnd;
      else return false;
      return true;
    default: return false;
  }
}

}  // namespace

void decode_keys(std::string_view bytes, std::vector<KeyPress>& out) {
  size_t i = 0;
  while (i < bytes.size()) {
    char c = bytes[i++];
    if (c == kEsc) {
      if (i >= bytes.size() || (bytes[i] != '[' && bytes[i] != 'O')) {
        out.push_back({Key::kEscape});
        continue;
      }
      // ESC [ params final, or ESC O final: parameters are digits and ';'.
      size_t start = ++i;
      while (i < bytes.size() && ((bytes[i] >= '0' && bytes[i] <= '9') || bytes[i] == ';')) ++i;
      if (i >= bytes.size()) break;  // cut short: dropped
      Key key;
      if (sequence_key(bytes[i], bytes.substr(start, i - start), key)) out.push_back({key});
      ++i;
      continue;
    }
    if (c == '\r' || c == '\n') out.push_back({Key::kEnter});
    else if (c == kCtrlC) out.push_back({Key::kQuit});
    else out.push_back({Key::kChar, c});
  }
}

}  // namespace sonde::top
