#include "probe/trace_probe.h"

#include <fmt/format.h>

#include <cctype>

namespace sonde::probe {

std::string TraceProbe::definition() const {
  std::string s = fmt::format("{}:{}/{} {}:0x{:x}", retprobe ? 'r' : 'p', group, event, path, offset);
  for (const auto& a : args) {
    s += ' ';
    if (!a.name.empty()) s += a.name + "=";
    s += a.fetch;
    if (!a.type.empty()) s += ":" + a.type;
  }
  return s;
}

namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

// NAME=FETCH[:TYPE]; the type follows the last ':' outside parentheses.
TraceArg parse_trace_arg(const std::string& word) {
  TraceArg a;
  std::string rest = word;
  size_t eq = rest.find('=');
  if (eq != std::string::npos && eq > 0 && (std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_'))
    a.name = rest.substr(0, eq), rest = rest.substr(eq + 1);
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(')', colon) == std::string::npos)
    a.type = rest.substr(colon + 1), rest.resize(colon);
  a.fetch = rest;
  return a;
}

}  // namespace

std::optional<TraceProbe> parse_uprobe_event_line(const std::string& line) {
  auto w = split_words(line);
  if (w.size() < 2 || w[0].size() < 3 || (w[0][0] != 'p' && w[0][0] != 'r') || w[0][1] != ':') return std::nullopt;
  TraceProbe p;
  p.raw = line;
  p.retprobe = w[0][0] == 'r';
  std::string name = w[0].substr(2);
  size_t slash = name.find('/');
  if (slash == std::string::npos) return std::nullopt;
  p.group = name.substr(0, slash);
  p.event = name.substr(slash + 1);
  size_t colon = w[1].rfind(":0x");
  if (colon == std::string::npos) return std::nullopt;
  p.path = w[1].substr(0, colon);
  std::string off = w[1].substr(colon + 3);
  size_t paren = off.find('(');  // a semaphore: PATH:0xOFF(0xSEM)
  if (paren != std::string::npos) off.resize(paren);
  if (off.empty() || off.size() > 16 || off.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return std::nullopt;
  p.offset = std::stoull(off, nullptr, 16);
  for (size_t i = 2; i < w.size(); ++i) p.args.push_back(parse_trace_arg(w[i]));
  return p;
}

std::string default_probe_group(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t cut = base.find_first_of("-.");
  if (cut != std::string::npos) base.resize(cut);
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return "probe_" + base;
}

}  // namespace sonde::probe
