#include "format/probe_event_text.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "util/byte_reader.h"

namespace sonde::format {
namespace {

// The quoted format and its arguments' field names (REC->x, __get_str(x)).
bool split_print_fmt(std::string_view pf, std::string& text, std::vector<std::string>& args) {
  if (pf.empty() || pf.front() != '"') return false;
  size_t i = 1;
  for (; i < pf.size() && pf[i] != '"'; ++i) {
    if (pf[i] == '\\' && i + 1 < pf.size()) ++i;  // \" inside the format
    text += pf[i];
  }
  if (i == pf.size()) return false;
  std::string_view rest = pf.substr(i + 1);
  while (!rest.empty()) {
    if (!rest.starts_with(", ")) return false;
    rest.remove_prefix(2);
    size_t end = rest.find(", ");
    std::string_view a = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    if (a.starts_with("REC->")) args.emplace_back(a.substr(5));
    else if (a.starts_with("__get_str(") && a.ends_with(")")) args.emplace_back(a.substr(10, a.size() - 11));
    else return false;
  }
  return true;
}

const TracepointField* field_named(const TracepointFormat& tf, const std::string& name) {
  for (const auto& f : tf.fields)
    if (f.name == name) return &f;
  return nullptr;
}

// One conversion (d, u, x or s) of field `f`; false when it does not fit.
bool convert(char conv, const TracepointField& f, std::span<const uint8_t> raw, std::string& out) {
  if (conv == 's') {
    auto text = f.is_data_loc ? data_loc_string(f, raw) : std::nullopt;
    if (text) out += *text;
    return text.has_value();
  }
  if (static_cast<size_t>(f.offset) + f.size > raw.size() || (f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
    return false;
  const uint8_t* p = raw.data() + f.offset;
  uint64_t u = f.size == 1 ? load<uint8_t>(p) : f.size == 2 ? load<uint16_t>(p) : f.size == 4 ? load<uint32_t>(p) : load<uint64_t>(p);
  int64_t s = f.size == 1 ? load<int8_t>(p) : f.size == 2 ? load<int16_t>(p) : f.size == 4 ? load<int32_t>(p) : load<int64_t>(p);
  if (conv == 'd') out += fmt::format("{}", s);
  else if (conv == 'u') out += fmt::format("{}", u);
  else if (conv == 'x') out += fmt::format("{:x}", u);
  else return false;
  return true;
}

}  // namespace

std::optional<std::string> format_probe_event(const TracepointFormat& tf, std::span<const uint8_t> raw) {
  if (tf.fields.empty() || (tf.fields[0].name != "__probe_ip" && tf.fields[0].name != "__probe_func")) return std::nullopt;
  std::string text;
  std::vector<std::string> args;
  if (!split_print_fmt(tf.print_fmt, text, args)) return std::nullopt;
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && (text[j] == 'l' || text[j] == 'L')) ++j;  // %lx, %Ld, %Lu: the field's size decides
    if (j == text.size() || next == args.size()) return std::nullopt;
    const TracepointField* f = field_named(tf, args[next++]);
    if (!f || !convert(text[j], *f, raw, out)) return std::nullopt;
    i = j;
  }
  if (next != args.size()) return std::nullopt;
  return out;
}

}  // namespace sonde::format
