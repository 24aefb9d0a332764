// `-e '%PROVIDER:EVENT[@PATH]'` specs: shell globs in either part, an
// optional binary pin.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sonde::probe {

struct ProbeSpec {
  std::string text;      // as given
  std::string provider;  // glob
  std::string name;      // glob
  std::string path;      // @PATH pin, "" if none
  bool is_glob() const;
  bool matches(std::string_view provider, std::string_view name) const;
};

// True for an event string that is an SDT spec (starts with '%').
bool is_sdt_spec(std::string_view event);
// Parses "%PROV:EVENT[@PATH]" (the leading % is required). Throws a usage
// error for a malformed spec.
ProbeSpec parse_probe_spec(std::string_view text);

}  // namespace sonde::probe
