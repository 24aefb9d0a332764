#include "util/mapped_path.h"

#include <charconv>

namespace sonde {

MappedPath classify_mapped_path(std::string_view p) {
  if (p.empty()) return MappedPath::kNone;
  if (p.front() == '[') {
    if (p.starts_with("[kernel.kallsyms]") || p == "[kernel]") return MappedPath::kKernel;
    if (p == "[vdso]") return MappedPath::kVdso;
    if (p.starts_with("[anon")) return MappedPath::kAnonNamed;
    return MappedPath::kPseudo;
  }
  if (p.front() != '/') return MappedPath::kRelative;
  if (p.starts_with("//anon")) return MappedPath::kAnon;
  if (p.starts_with("/memfd:")) return MappedPath::kMemfd;
  if (p.starts_with("/tmp/perf-")) return MappedPath::kPerfTemp;
  if (p.starts_with("/dev/")) return MappedPath::kDevice;
  if (p.starts_with("/SYSV")) return MappedPath::kSysV;
  if (p.starts_with("/anon_hugepage")) return MappedPath::kAnonHugepage;
  return MappedPath::kFile;
}

bool is_library_path(std::string_view path) {
  const std::string_view base = path.substr(path.rfind('/') + 1);
  return base.empty() || is_pseudo_path(base) || base.find(".so") != std::string_view::npos;
}

namespace {

// perf 6.1's is_anon_memory and is_no_dso_memory (util/map.c): the names
// map__new replaces by the pid's perf map when the mapping is executable.
bool perf_renames(std::string_view p) {
  return p == "//anon" || p.starts_with("/dev/zero") || p.starts_with("/anon_hugepage") || p.starts_with("[stack") ||
         p.starts_with("/SYSV") || p == "[heap]";
}

// The pid of "/tmp/perf-PID.map" (sscanf "/tmp/perf-%d.map"), -1 otherwise.
int64_t perf_map_pid(std::string_view p) {
  constexpr std::string_view kPrefix = "/tmp/perf-";
  if (!p.starts_with(kPrefix) || !p.ends_with(".map")) return -1;
  const std::string_view digits = p.substr(kPrefix.size(), p.size() - kPrefix.size() - 4);
  int32_t pid = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  if (ec != std::errc() || end != digits.data() + digits.size()) return -1;
  return pid;
}

}  // namespace

std::string mapping_long_name(std::string_view path, uint32_t pid) {
  if (path.empty()) return "[unknown]";
  if (perf_renames(path)) return "/tmp/perf-" + std::to_string(int32_t(pid)) + ".map";
  std::string name(path);
  replace_control_chars(name);
  return name;
}

void replace_control_chars(std::string& text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
}

std::string mapping_short_name(std::string_view long_name) {
  if (const int64_t pid = perf_map_pid(long_name); pid >= 0) return "[JIT] tid " + std::to_string(pid);
  // "[kernel.kallsyms]_text" reads [kernel.kallsyms]; "[x" with no ']' stays whole.
  if (is_pseudo_path(long_name)) {
    const size_t close = long_name.find(']');
    return std::string(close == std::string_view::npos ? long_name : long_name.substr(0, close + 1));
  }
  // basename(3): what follows the last '/', kept whole when that is all.
  const size_t slash = long_name.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == long_name.size()) return std::string(long_name);
  return std::string(long_name.substr(slash + 1));
}

std::string mapping_export_name(std::string_view long_name) {
  return perf_map_pid(long_name) >= 0 ? mapping_short_name(long_name) : std::string(long_name);
}

}  // namespace sonde
