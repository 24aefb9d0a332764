#include "probe/probe_definition.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "util/error.h"

namespace sonde::probe {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_identifier(const std::string& s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

// A number in C syntax (decimal, 0x hex); nullopt-like: false when not one.
bool parse_number(const std::string& s, uint64_t& out) {
  if (s.empty()) return false;
  int base = 10;
  std::string_view v = s;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) base = 16, v.remove_prefix(2);
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  return ec == std::errc() && p == v.data() + v.size();
}

int parse_line(const std::string& s, const std::string& def) {
  uint64_t n = 0;
  if (!parse_number(s, n) || n > 10000000) throw_usage("probe: '{}' is not a line number in '{}'", s, def);
  return static_cast<int>(n);
}

// Fields after a variable name: ->a, .b, [3].
std::vector<ArgField> parse_fields(std::string_view rest, const std::string& arg) {
  std::vector<ArgField> out;
  while (!rest.empty()) {
    ArgField f;
    if (rest.starts_with("->")) {
      f.deref = true, rest.remove_prefix(2);
    } else if (rest[0] == '.') {
      rest.remove_prefix(1);
    } else if (rest[0] == '[') {
      size_t close = rest.find(']');
      uint64_t n = 0;
      if (close == std::string_view::npos || !parse_number(std::string(rest.substr(1, close - 1)), n))
        throw_usage("probe: bad array index in argument '{}'", arg);
      f.is_index = true, f.index = static_cast<int64_t>(n);
      rest.remove_prefix(close + 1);
      out.push_back(f);
      continue;
    } else {
      throw_usage("probe: cannot parse argument '{}' (expected ->field, .field or [N])", arg);
    }
    size_t n = 0;
    while (n < rest.size() && is_ident_char(rest[n])) ++n;
    if (n == 0 || !is_ident_start(rest[0])) throw_usage("probe: missing field name in argument '{}'", arg);
    f.name = std::string(rest.substr(0, n));
    rest.remove_prefix(n);
    out.push_back(f);
  }
  return out;
}

ProbeArgSpec parse_arg(const std::string& word) {
  ProbeArgSpec a;
  std::string expr = word;
  size_t eq = expr.find('=');
  if (eq != std::string::npos && is_identifier(expr.substr(0, eq))) {
    a.name = expr.substr(0, eq);
    expr = expr.substr(eq + 1);
  }
  // The type follows the last ':' (raw fetch args such as +8(%di):u32 too).
  size_t colon = expr.rfind(':');
  if (colon != std::string::npos) {
    a.type = expr.substr(colon + 1);
    expr = expr.substr(0, colon);
    check_probe_type(a.type, word);
  }
  if (expr.empty()) throw_usage("probe: empty argument '{}'", word);
  if (!is_ident_start(expr[0])) {
    a.var = expr;  // $retval, $params, %di, @sym, +8(%di), a number
    return a;
  }
  size_t n = 0;
  while (n < expr.size() && is_ident_char(expr[n])) ++n;
  a.var = expr.substr(0, n);
  a.fields = parse_fields(std::string_view(expr).substr(n), word);
  return a;
}

// FUNC[@SRC][:RLN|+OFF|%return] or SRC:ALN, with an optional [GROUP:]EVENT=.
void parse_point(std::string point, ProbeDefinition& d) {
  size_t eq = point.find('=');
  if (eq > point.find(';')) eq = std::string::npos;  // an = in a ;PTN line pattern names no event
  if (eq != std::string::npos) {
    std::string name = point.substr(0, eq);
    point = point.substr(eq + 1);
    size_t c = name.find(':');
    if (c != std::string::npos) d.group = name.substr(0, c), name = name.substr(c + 1);
    if (!is_identifier(name) || (!d.group.empty() && !is_identifier(d.group)))
      throw_usage("probe: '{}' is not a valid event name (letters, digits and _)", name);
    d.event = name;
  }
  if (size_t semi = point.find(';'); semi != std::string::npos) {  // ;PTN runs to the end, as perf's parse
    d.lazy = point.substr(semi + 1);
    point.resize(semi);
    if (d.lazy.empty()) throw_usage("probe: an empty line pattern in '{}'", d.text);
  }
  if (point.ends_with("%return")) d.retprobe = true, point.resize(point.size() - 7);
  size_t at = point.find('@');
  std::string where = point;
  if (at != std::string::npos) {
    d.file = point.substr(at + 1);
    where = point.substr(0, at);
    size_t sep = d.file.find_first_of(":+");  // FUNC@SRC:RLN is also accepted
    if (sep != std::string::npos) where += d.file.substr(sep), d.file.resize(sep);
  }
  size_t sep = where.find_first_of(":+");
  std::string head = where.substr(0, sep);
  std::string tail = sep == std::string::npos ? "" : where.substr(sep + 1);
  if (!d.lazy.empty() && sep != std::string::npos)
    throw_usage("probe: a line pattern goes with FUNC or SRC alone, not '{}'", d.text);
  bool is_file = at == std::string::npos && head.find_first_of("./") != std::string::npos;
  if (is_file && !d.lazy.empty()) {
    d.file = head;
  } else if (is_file) {
    d.file = head;
    if (sep == std::string::npos || where[sep] != ':') throw_usage("probe: '{}' needs a line: SRC:LINE", d.text);
    d.line = parse_line(tail, d.text), d.absolute_line = true;
  } else {
    d.function = head;
    if (sep != std::string::npos && where[sep] == ':') d.line = parse_line(tail, d.text);
    if (sep != std::string::npos && where[sep] == '+') {
      if (!parse_number(tail, d.offset)) throw_usage("probe: '{}' is not an offset in '{}'", tail, d.text);
      d.has_offset = true;
    }
  }
  if (d.function.empty() && d.file.empty()) throw_usage("probe: no probe point in '{}'", d.text);
  if (d.function.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.*?[]") !=
      std::string::npos)
    throw_usage("probe: '{}' is not a function name in '{}'", d.function, d.text);
  if (d.retprobe && (d.line != 0 || d.has_offset || d.absolute_line || !d.lazy.empty()))
    throw_usage("probe: %return is only for a function entry, not '{}'", d.text);
}

}  // namespace

void check_probe_type(const std::string& type, const std::string& arg) {
  static const char* const kTypes[] = {"u8",  "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8",
                                       "x16", "x32", "x64", "u",   "s",  "x",   "string"};
  for (const char* t : kTypes)
    if (type == t) return;
  if (type.size() > 1 && type[0] == 'b' && type.find('@') != std::string::npos &&
      type.find('/') != std::string::npos)
    return;  // a bitfield, passed to the kernel as written
  throw_usage("probe: unknown type '{}' in argument '{}' (types: u8..u64, s8..s64, x8..x64, string, bW@O/S)", type,
              arg);
}

bool ProbeArgSpec::raw() const { return var.empty() || !is_ident_start(var[0]); }

// Appended piece by piece: gcc 12 at -O3 takes `"literal" + std::string`
// temporaries for overlapping copies (-Wrestrict, a false positive).
std::string ProbeArgSpec::text() const {
  std::string s;
  if (!name.empty()) s.append(name).append("=");
  s += var;
  for (const auto& f : fields) {
    if (f.is_index) s.append("[").append(std::to_string(f.index)).append("]");
    else s.append(f.deref ? "->" : ".").append(f.name);
  }
  if (!type.empty()) s.append(":").append(type);
  return s;
}

bool ProbeDefinition::has_c_args() const {
  for (const auto& a : args)
    if (!a.raw() || a.var == "$params" || a.var == "$vars") return true;
  return false;
}

std::string ProbeDefinition::point_text() const {
  if (function.empty()) return lazy.empty() ? fmt::format("{}:{}", file, line) : fmt::format("{};{}", file, lazy);
  std::string s = function;
  if (line) s += fmt::format(":{}", line);
  if (has_offset) s += fmt::format("+{}", offset);
  if (retprobe) s += "%return";
  if (!file.empty()) s += fmt::format("@{}", file);
  if (!lazy.empty()) s += ";" + lazy;
  return s;
}

ProbeDefinition parse_probe_definition(const std::string& text) {
  ProbeDefinition d;
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) words.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(cur);
  if (words.empty()) throw_usage("probe: empty probe definition");
  for (size_t i = 0; i < words.size(); ++i) d.text += (i ? " " : "") + words[i];
  parse_point(words[0], d);
  for (size_t i = 1; i < words.size(); ++i) d.args.push_back(parse_arg(words[i]));
  if (d.args.size() > 128) throw_usage("probe: too many arguments ({}, at most 128)", d.args.size());
  return d;
}

}  // namespace sonde::probe
