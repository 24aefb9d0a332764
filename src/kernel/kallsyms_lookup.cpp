#include "kernel/kallsyms_lookup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "util/parse_int.h"

namespace sonde::kernel {

namespace {

struct Line {
  uint64_t addr = 0;
  char type = 0;
  std::string_view name, module;
};

// "ADDR TYPE NAME[\t[MODULE]]"; nullopt for a line that is not that.
std::optional<Line> parse_line(std::string_view line) {
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 + 3 > line.size() || line[sp1 + 2] != ' ') return std::nullopt;
  auto addr = parse_uint<uint64_t>(line.substr(0, sp1), 0, UINT64_MAX, IntSyntax::Hex);
  if (!addr) return std::nullopt;
  Line l{addr.value, line[sp1 + 1], line.substr(sp1 + 3), {}};
  if (size_t tab = l.name.find('\t'); tab != std::string_view::npos) {
    std::string_view mod = l.name.substr(tab + 1);
    l.name = l.name.substr(0, tab);
    if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']') l.module = mod.substr(1, mod.size() - 2);
  }
  return l;
}

// perf's symbol_type__filter: text, weak, data and bss symbols.
bool kept(char type) {
  char t = static_cast<char>(std::toupper(static_cast<unsigned char>(type)));
  return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

}  // namespace

std::optional<KallsymsEntry> find_kallsyms_symbol(std::string_view text, std::string_view name) {
  std::vector<Line> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    if (auto l = parse_line(text.substr(pos, nl - pos)); l && kept(l->type)) lines.push_back(*l);
    pos = nl + 1;
  }
  // The kernel before modules, then each object's symbols by address.
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    if (a.module.empty() != b.module.empty()) return a.module.empty();
    return a.module != b.module ? a.module < b.module : a.addr < b.addr;
  });
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].name != name) continue;
    KallsymsEntry e{std::string(lines[i].module), lines[i].addr, lines[i].addr};
    for (size_t j = i + 1; j < lines.size() && lines[j].module == lines[i].module; ++j)
      if (lines[j].addr > e.start) {
        e.end = lines[j].addr;
        break;
      }
    return e;
  }
  return std::nullopt;
}

std::string format_kallsyms_entry(std::string_view name, const KallsymsEntry& e) {
  std::string object = e.module.empty() ? "[kernel] [kernel.kallsyms]" : fmt::format("[{0}] [{0}]", e.module);
  return fmt::format("{}: {} {:#x}-{:#x} ({:#x}-{:#x})", name, object, e.start, e.end, e.start, e.end);
}

}  // namespace sonde::kernel
