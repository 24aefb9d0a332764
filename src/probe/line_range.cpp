#include "probe/line_range.h"

#include <charconv>
#include <string_view>

#include "util/error.h"

namespace sonde::probe {
namespace {

int range_line_number(std::string_view s, const std::string& text) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw_usage("probe: bad line range '{}': '{}' is not a line number", text, s);
  return v;
}

}  // namespace

LineRange parse_line_range(const std::string& text) {
  LineRange r;
  std::string_view name = text;
  size_t colon = name.find(':');
  if (colon != std::string_view::npos) {
    std::string_view range = name.substr(colon + 1);
    name = name.substr(0, colon);
    size_t sep = range.find_first_of("-+");
    r.start = range_line_number(range.substr(0, sep), text);
    r.has_start = true;
    if (sep != std::string_view::npos) {
      int n = range_line_number(range.substr(sep + 1), text);
      r.end = range[sep] == '-' ? n : r.start + n - 1;  // +COUNT lines from START
      if (r.end < r.start) throw_usage("probe: bad line range '{}': it ends before it starts", text);
    }
  }
  size_t at = name.find('@');
  if (at != std::string_view::npos) {
    r.function = name.substr(0, at);
    r.file = name.substr(at + 1);
  } else if (name.find_first_of("/.") != std::string_view::npos) {
    r.file = name;
  } else {
    r.function = name;
  }
  if ((r.function.empty() && r.file.empty()) || (at != std::string_view::npos && (r.function.empty() || r.file.empty())))
    throw_usage("probe: bad line range '{}' (FUNC[@SRC][:START[-END|+COUNT]] or SRC[:START[-END|+COUNT]])", text);
  return r;
}

}  // namespace sonde::probe
