// Fills in the build-id of MMAP2 records that arrive in the inode form: the
// kernel could not read it (page not cached, notes past the first page) or
// recorder-side build-ids were asked for. The union at +40 has the same size
// in both forms, so the record is rewritten in place. Each object is read
// once: results (including "has none") are cached by device+inode, or by
// path when the inode is unknown.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "elf/build_id.h"

namespace sonde::record {

class BuildIdPatcher {
 public:
  // True for mappings that can have a build-id: a file path or "[vdso]",
  // not "//anon", "/memfd:..." or a JIT map.
  static bool wants_build_id(std::string_view filename);

  // The build-id of the object mapped at [start, end) in pid, read through
  // /proc/PID/map_files (works for deleted files and other mount
  // namespaces), then /proc/PID/root/PATH, then PATH. Cached. "[vdso]" is
  // read from the process's memory (see elf/vdso.h), every time: a few
  // microseconds once per process, and the image depends on its ABI.
  std::optional<BuildId> lookup(pid_t pid, uint64_t start, uint64_t end, uint64_t dev, uint64_t ino,
                                std::string_view path);

  // `rec` is a whole MMAP2 record in a writable buffer. If it is in the inode
  // form, is executable and names a file with a build-id, switches it to the
  // build-id form. Returns true if the record now carries a build-id.
  // Without kernel build-ids (below), a record that arrives with the
  // build-id bit is in the inode form all the same: the kernel leaks that
  // bit from other sessions' events (docs/record.md, "Build-ids"), and
  // patch() clears it first, with -B too.
  bool patch(std::span<uint8_t> rec);
  // The tracking attr asks the kernel for build-ids (--buildid-mode=kernel):
  // a record with the bit then carries one.
  void kernel_writes_build_ids(bool yes) { kernel_ids_ = yes; }

  uint64_t files_read() const { return files_read_; }

  // -B: no build-ids at all. lookup() finds none and patch() leaves every
  // record as it is, so nothing is read.
  void disable() { enabled_ = false; }
  bool enabled() const { return enabled_; }

 private:
  struct Key {
    uint64_t dev, ino;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.dev * 0x9e3779b97f4a7c15ULL ^ k.ino); }
  };
  std::unordered_map<Key, std::optional<BuildId>, KeyHash> by_inode_;
  std::unordered_map<std::string, std::optional<BuildId>> by_path_;
  uint64_t files_read_ = 0;
  bool enabled_ = true;
  bool kernel_ids_ = false;
  std::vector<uint8_t> vdso_scratch_;
};

}  // namespace sonde::record
