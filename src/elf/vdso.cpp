#include "elf/vdso.h"

#include <sys/uio.h>

#include <string_view>

#include "util/proc_maps.h"

namespace sonde {

namespace {

// The [vdso] line of /proc/self/maps. getauxval(AT_SYSINFO_EHDR) gives the
// start but not the length, which the recorder compares.
std::span<const uint8_t> find_own_vdso() {
  auto maps = read_proc_maps(0);
  if (!maps) return {};
  std::span<const uint8_t> image;
  bool found = false;
  for_each_maps_line(*maps, [&](const MapsLine& m) {
    if (found || m.path != "[vdso]") return;
    found = true;
    if (m.end > m.start && m.end - m.start <= kMaxVdsoBytes)
      image = {reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(m.start)), static_cast<size_t>(m.end - m.start)};
  });
  return image;
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
