#include "record/build_id_patcher.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>

#include "elf/vdso.h"
#include "format/records.h"
#include "util/mapped_path.h"
#include "util/fd.h"
#include "util/proc_maps.h"

namespace sonde::record {

namespace {

std::optional<BuildId> read_via_proc(pid_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
                                     std::string_view path) {
  UniqueFd fd = open_mapped_file(pid, path, {start, end, dev, ino});
  if (!fd) return std::nullopt;
  return read_build_id(fd.get());
}

}  // namespace

// Files and the vdso; not [heap], [vsyscall], //anon, memfds, devices,
// System V memory or perf's files.
bool BuildIdPatcher::wants_build_id(std::string_view f) {
  switch (classify_mapped_path(f)) {
    case MappedPath::kVdso:
    case MappedPath::kFile:
    case MappedPath::kAnonHugepage:
      return true;
    default:
      return false;
  }
}

std::optional<BuildId> BuildIdPatcher::lookup(pid_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
                                              std::string_view path) {
  if (!enabled_) return std::nullopt;
  if (classify_mapped_path(path) == MappedPath::kVdso) return process_vdso_build_id(pid, start, end - start, vdso_scratch_);
  if (ino != 0) {
    Key k{dev, ino};
    auto it = by_inode_.find(k);
    if (it != by_inode_.end()) return it->second;
    ++files_read_;
    auto id = read_via_proc(pid, start, end, dev, ino, path);
    by_inode_.emplace(k, id);
    return id;
  }
  std::string p(path);
  auto it = by_path_.find(p);
  if (it != by_path_.end()) return it->second;
  ++files_read_;
  auto id = read_via_proc(pid, start, end, 0, 0, path);
  by_path_.emplace(std::move(p), id);
  return id;
}

bool BuildIdPatcher::patch(std::span<uint8_t> rec) {
  if (!kernel_ids_) format::clear_mmap2_build_id_bit(rec);
  if (!enabled_ || rec.size() < sizeof(format::Mmap2Fixed) + 1) return false;  // off, or not even a one-byte name
  auto m = format::Mmap2View::parse(rec);
  if (!m) return false;
  if (m->has_build_id()) return true;
  if (!(m->prot & PROT_EXEC)) return false;
  if (!wants_build_id(m->filename)) return false;
  uint64_t dev = makedev(m->maj, m->min);
  auto id = lookup(static_cast<pid_t>(m->pid), m->addr, m->addr + m->len, dev, m->ino, m->filename);
  if (!id || id->empty()) return false;
  return format::patch_mmap2_build_id(rec, id->view());
}

}  // namespace sonde::record
