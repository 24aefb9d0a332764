#include "symbol/demangle.h"

#include <cxxabi.h>

#include <cctype>

#include <cstdlib>
#include <vector>

namespace sonde {

namespace {

bool is_operator_char(char c) {
  return std::string_view("<>=!+-*/%^&|~,[]").find(c) != std::string_view::npos;
}

// Positions of top-level '(' and ' ' in a demangled name, skipping over
// template arguments, nested parentheses/braces and operator tokens (whose
// '<', '>' and "()" are not brackets).
struct Scan {
  std::vector<size_t> parens;  // top-level '('
  std::vector<size_t> spaces;  // top-level ' ' before any "operator" token
  bool balanced = true;
};

Scan scan(std::string_view s) {
  Scan r;
  int depth = 0;
  bool after_operator = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (s.compare(i, 8, "operator") == 0 && (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ') &&
        (i + 8 == s.size() || !(std::isalnum(static_cast<unsigned char>(s[i + 8])) || s[i + 8] == '_'))) {
      if (depth == 0) after_operator = true;
      i += 8;
      if (s.compare(i, 2, "()") == 0) {
        i += 1;
        continue;
      }
      while (i < s.size() && is_operator_char(s[i])) ++i;
      --i;
      continue;
    }
    switch (c) {
      case '<': case '(': case '{': case '[':
        if (c == '(' && depth == 0) r.parens.push_back(i);
        ++depth;
        break;
      case '>': case ')': case '}': case ']':
        if (--depth < 0) r.balanced = false;
        break;
      case ' ':
        if (depth == 0 && !after_operator) r.spaces.push_back(i);
        break;
      default:
        break;
    }
  }
  if (depth != 0) r.balanced = false;
  return r;
}

}  // namespace

std::string strip_signature(std::string_view full) {
  // " [clone .cold]" and similar suffixes stay, as libiberty prints them.
  std::string_view suffix;
  if (auto c = full.find(" [clone "); c != std::string_view::npos) {
    suffix = full.substr(c);
    full = full.substr(0, c);
  }
  Scan sc = scan(full);
  if (!sc.balanced || sc.parens.empty()) return std::string(full) + std::string(suffix);
  std::string_view name = full.substr(0, sc.parens.back());
  // A space before the name separates a template function's return type.
  size_t start = 0;
  for (size_t sp : sc.spaces)
    if (sp < name.size()) start = sp + 1;
  name = name.substr(start);
  if (name.empty()) return std::string(full) + std::string(suffix);
  return std::string(name) + std::string(suffix);
}

std::optional<std::string> demangle(std::string_view mangled, bool with_params) {
  if (mangled.substr(0, 2) != "_Z") return std::nullopt;
  std::string base(mangled);
  std::string version;
  if (auto at = base.find('@'); at != std::string::npos) {
    version = base.substr(at);
    base.resize(at);
  }
  int status = 0;
  char* d = abi::__cxa_demangle(base.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) {
    free(d);
    return std::nullopt;
  }
  std::string out = with_params ? std::string(d) : strip_signature(d);
  free(d);
  return out + version;
}

}  // namespace sonde
