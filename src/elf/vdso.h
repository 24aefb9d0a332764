// The vdso: the kernel's ELF image mapped into every process as "[vdso]".
// It has no file, so the kernel's build_id attr bit cannot give its id and
// nothing on disk holds it; the recorder reads it from memory instead.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "elf/build_id.h"

namespace sonde {

// A vdso is two or three pages; a "[vdso]" mapping larger than this is not
// one sonde understands, and is not read.
inline constexpr uint64_t kMaxVdsoBytes = 64 * 1024;

// This process's own vdso image (read in place; empty if it has none). Every
// process of the same ABI on this kernel maps the same image.
std::span<const uint8_t> own_vdso();

// Copies the [start, start + len) mapping of process `pid` into `out`
// (resized to len) with process_vm_readv. False if the process is gone, the
// range is unreadable or len is 0 or over kMaxVdsoBytes.
bool read_process_vdso(pid_t pid, uint64_t start, uint64_t len, std::vector<uint8_t>& out);

// The build-id of the vdso that `pid` maps at [start, start + len): read from
// that process; when it is already gone, this process's own vdso if it has
// the same length (the same ABI's image). `scratch` is reused between calls.
std::optional<BuildId> process_vdso_build_id(pid_t pid, uint64_t start, uint64_t len, std::vector<uint8_t>& scratch);

}  // namespace sonde
