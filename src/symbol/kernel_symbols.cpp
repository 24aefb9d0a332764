#include "symbol/kernel_symbols.h"

#include <algorithm>
#include <charconv>

#include "util/error.h"
#include "util/fs.h"

namespace sonde {

namespace {

std::string_view next_field(std::string_view& line) {
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(b);
  size_t e = line.find_first_of(" \t");
  std::string_view f = line.substr(0, e);
  line.remove_prefix(e == std::string_view::npos ? line.size() : e);
  return f;
}

bool parse_hex(std::string_view s, uint64_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    f(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

}  // namespace

bool load_kallsyms(const std::string& path, std::string& text, SymbolTable& table,
                   std::vector<ModuleRange>& modules, std::string* reason) {
  auto content = read_small_file(path);
  if (!content) {
    if (reason) *reason = fmt::format("{}: {}", path, errno_text(errno));
    return false;
  }
  text = std::move(*content);
  bool any_nonzero = false;
  for_each_line(std::string_view(text), [&](std::string_view line) {
    uint64_t addr = 0;
    std::string_view a = next_field(line), type = next_field(line), name = next_field(line);
    std::string_view mod = next_field(line);
    if (name.empty() || type.size() != 1 || !parse_hex(a, addr)) return;
    char t = type[0];
    if (t != 't' && t != 'T' && t != 'w' && t != 'W') return;
    if (addr == 0) return;
    any_nonzero = true;
    table.add_view(addr, 0, name);
    if (!mod.empty()) {
      if (!modules.empty() && modules.back().name == mod) {
        modules.back().start = std::min(modules.back().start, addr);
        modules.back().end = std::max(modules.back().end, addr + 1);
      } else {
        modules.push_back({addr, addr + 1, mod});
      }
    }
  });
  if (!any_nonzero) {
    if (reason) *reason = fmt::format("{}: no usable addresses (hidden by kernel.kptr_restrict?)", path);
    return false;
  }
  // kallsyms has no sizes: each symbol runs to the next one, capped so the
  // last one before a hole does not absorb it.
  table.finalize(1 << 20, SymbolTable::Aliases::kLastWins);
  std::sort(modules.begin(), modules.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
  return true;
}

const ModuleRange* find_module(const std::vector<ModuleRange>& modules, uint64_t addr) {
  auto it = std::upper_bound(modules.begin(), modules.end(), addr,
                             [](uint64_t a, const ModuleRange& m) { return a < m.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  // end is the last symbol's start + 1: allow that symbol's body (1 MiB cap as above).
  return addr < it->end + (1 << 20) ? &*it : nullptr;
}

bool load_perf_map(const std::string& path, std::string& text, SymbolTable& table, std::string* reason) {
  auto content = read_small_file(path);
  if (!content) {
    if (reason) *reason = fmt::format("{}: {}", path, errno_text(errno));
    return false;
  }
  text = std::move(*content);
  for_each_line(std::string_view(text), [&](std::string_view line) {
    uint64_t start = 0, size = 0;
    std::string_view a = next_field(line), s = next_field(line);
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos || !parse_hex(a, start) || !parse_hex(s, size)) return;
    std::string_view name = line.substr(b);
    if (!name.empty() && name.back() == '\r') name.remove_suffix(1);
    table.add_view(start, size, name);
  });
  table.finalize();
  return true;
}

std::unique_ptr<ElfFile> running_vdso(std::string* reason) {
  auto maps = read_small_file("/proc/self/maps");
  if (!maps) {
    if (reason) *reason = "/proc/self/maps: " + errno_text(errno);
    return nullptr;
  }
  uint64_t start = 0, end = 0;
  for_each_line(std::string_view(*maps), [&](std::string_view line) {
    if (line.size() < 6 || line.substr(line.size() - 6) != "[vdso]") return;
    size_t dash = line.find('-'), sp = line.find(' ');
    if (dash == std::string_view::npos || sp == std::string_view::npos || dash > sp) return;
    if (!parse_hex(line.substr(0, dash), start) || !parse_hex(line.substr(dash + 1, sp - dash - 1), end)) start = end = 0;
  });
  // The vdso is a few pages; anything else means the line was not understood.
  if (end <= start || end - start > (1u << 20)) {
    if (reason) *reason = "no [vdso] mapping in this process";
    return nullptr;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(start));
  std::vector<uint8_t> image(p, p + (end - start));
  return ElfFile::from_memory(std::move(image), "[vdso]", reason);
}

}  // namespace sonde
