#include "elf/vdso.h"

#include <sys/uio.h>

#include <charconv>
#include <string_view>

#include "util/fs.h"

namespace sonde {

namespace {

bool parse_hex(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// The [vdso] line of /proc/self/maps. getauxval(AT_SYSINFO_EHDR) gives the
// start but not the length, which the recorder compares.
std::span<const uint8_t> find_own_vdso() {
  auto maps = read_small_file("/proc/self/maps");
  if (!maps) return {};
  std::string_view text(*maps);
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.ends_with("[vdso]")) continue;
    size_t dash = line.find('-'), sp = line.find(' ');
    uint64_t start = 0, end = 0;
    if (dash == std::string_view::npos || sp == std::string_view::npos || dash > sp) return {};
    if (!parse_hex(line.substr(0, dash), start) || !parse_hex(line.substr(dash + 1, sp - dash - 1), end)) return {};
    if (end <= start || end - start > kMaxVdsoBytes) return {};
    return {reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(start)), static_cast<size_t>(end - start)};
  }
  return {};
}

}  // namespace

std::span<const uint8_t> own_vdso() {
  // The vdso never moves or changes during a process's life: found once.
  static const std::span<const uint8_t> image = find_own_vdso();
  return image;
}

bool read_process_vdso(pid_t pid, uint64_t start, uint64_t len, std::vector<uint8_t>& out) {
  if (len == 0 || len > kMaxVdsoBytes || pid <= 0) return false;
  out.resize(static_cast<size_t>(len));
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(start)), out.size()};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

std::optional<BuildId> process_vdso_build_id(pid_t pid, uint64_t start, uint64_t len, std::vector<uint8_t>& scratch) {
  if (read_process_vdso(pid, start, len, scratch)) return read_build_id(std::span<const uint8_t>(scratch));
  auto own = own_vdso();
  if (!own.empty() && own.size() == len) return read_build_id(own);
  return std::nullopt;
}

}  // namespace sonde
