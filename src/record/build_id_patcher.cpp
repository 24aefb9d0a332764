#include "record/build_id_patcher.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>

#include "elf/vdso.h"
#include "format/records.h"
#include "util/fd.h"

namespace sonde::record {

namespace {

// Is the file open on `fd` the mapped one? Always, for map_files; by path it
// may have been replaced since (a rebuild), and then its id would be wrong.
bool is_mapped_file(int fd, uint64_t dev, uint64_t ino) {
  if (ino == 0) return true;  // the record does not say: the path is all there is
  struct stat st {};
  return ::fstat(fd, &st) == 0 && st.st_ino == ino && st.st_dev == dev;
}

std::optional<BuildId> read_via_proc(pid_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
                                     std::string_view path) {
  char mf[96];
  std::snprintf(mf, sizeof mf, "/proc/%d/map_files/%llx-%llx", pid, static_cast<unsigned long long>(start),
                static_cast<unsigned long long>(end));
  // Regular files only: the workload may have put a FIFO where the mapped
  // file was, and an open blocking the recorder would stall every buffer.
  UniqueFd fd = open_regular_file(mf);
  if (!fd && pid > 0) {
    std::string root = "/proc/" + std::to_string(pid) + "/root" + std::string(path);
    fd = open_regular_file(root.c_str());
    if (fd && !is_mapped_file(fd.get(), dev, ino)) fd.reset();
  }
  if (!fd) {
    fd = open_regular_file(std::string(path).c_str());
    if (fd && !is_mapped_file(fd.get(), dev, ino)) fd.reset();
  }
  if (!fd) return std::nullopt;
  return read_build_id(fd.get());
}

}  // namespace

bool BuildIdPatcher::wants_build_id(std::string_view f) {
  if (f == "[vdso]") return true;
  if (f.empty() || f[0] != '/') return false;  // [heap], [vsyscall], //anon are not files
  if (f.starts_with("//anon") || f.starts_with("/memfd:") || f.starts_with("/dev/") ||
      f.starts_with("/SYSV") || f.starts_with("/tmp/perf-"))
    return false;
  return true;
}

std::optional<BuildId> BuildIdPatcher::lookup(pid_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
                                              std::string_view path) {
  if (!enabled_) return std::nullopt;
  if (path == "[vdso]") return process_vdso_build_id(pid, start, end - start, vdso_scratch_);
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
