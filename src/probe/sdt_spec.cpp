#include "probe/sdt_spec.h"

#include <fnmatch.h>

#include "util/error.h"

namespace sonde::probe {

bool is_sdt_spec(std::string_view event) { return !event.empty() && event.front() == '%'; }

bool ProbeSpec::is_glob() const {
  return provider.find_first_of("*?[") != std::string::npos || name.find_first_of("*?[") != std::string::npos;
}

bool ProbeSpec::matches(std::string_view p, std::string_view n) const {
  return fnmatch(provider.c_str(), std::string(p).c_str(), 0) == 0 &&
         fnmatch(name.c_str(), std::string(n).c_str(), 0) == 0;
}

ProbeSpec parse_probe_spec(std::string_view text) {
  ProbeSpec s;
  s.text = text;
  if (!is_sdt_spec(text)) throw_usage("sdt: '{}' is not an SDT probe (expected %PROVIDER:EVENT[@PATH])", text);
  std::string_view rest = text.substr(1);
  size_t at = rest.find('@');
  if (at != std::string_view::npos) {
    s.path = rest.substr(at + 1);
    rest = rest.substr(0, at);
    if (s.path.empty()) throw_usage("sdt: '{}': empty path after @", text);
  }
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) {
    // "%PROVIDER" alone means every probe of the provider.
    s.provider = rest;
    s.name = "*";
  } else {
    s.provider = rest.substr(0, colon);
    s.name = rest.substr(colon + 1);
  }
  if (s.provider.empty() || s.name.empty() || s.name.find(':') != std::string::npos)
    throw_usage("sdt: malformed probe '{}' (expected %PROVIDER:EVENT[@PATH])", text);
  return s;
}

}  // namespace sonde::probe
