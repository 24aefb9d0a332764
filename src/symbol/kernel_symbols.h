// Text symbol sources that are not ELF files: /proc/kallsyms (kernel and
// modules) and perf's JIT maps (/tmp/perf-PID.map). Perf-map names are views
// into `text`, which the caller keeps alive next to the table; kernel symbols
// own their names (KernelSymbols).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "elf/elf_file.h"
#include "elf/string_arena.h"
#include "elf/symbol_table.h"
#include "util/fd.h"

namespace sonde {

struct ModuleRange {
  uint64_t start = 0;
  uint64_t end = 0;  // one past the last symbol's start
  std::string name;  // "[ext4]"
};

// The kernel's text symbols, compact: a report needs a few hundred of the
// 100K+ kallsyms entries, so the table keeps only what a lookup needs: sorted
// addresses and one 4-byte name position each. Addresses are 4-byte offsets
// from a base when all fit (kernel text and modules span well under 4 GiB),
// else 8 bytes. Names stay in
// the file when it is a regular file (the build-id cache copy; an open
// descriptor keeps that inode even if the cache entry is replaced) and are
// read on first use; otherwise (/proc/kallsyms, whose text the kernel
// regenerates on each read) they are copied NUL-terminated into 64 KiB
// blocks. Sizes are not stored: kallsyms has none, each symbol runs to the
// next address, capped at kMaxGap.
class KernelSymbols {
 public:
  static constexpr uint64_t kMaxGap = 1 << 20;
  static constexpr size_t kNone = SIZE_MAX;

  // Index of the symbol containing `vaddr`, or kNone.
  size_t find(uint64_t vaddr) const;
  uint64_t addr(size_t i) const { return narrow_ ? base_ + lo_[i] : addrs_[i]; }
  uint64_t size(size_t i) const { return i + 1 < size() ? std::min(addr(i + 1) - addr(i), kMaxGap) : kMaxGap; }
  // Not const: a name left in the file is read (and kept) on first use.
  std::string_view name(size_t i);
  size_t size() const { return narrow_ ? lo_.size() : addrs_.size(); }
  bool empty() const { return size() == 0; }

  // kallsyms names are at most 512 bytes (KSYM_NAME_LEN); longer ones are
  // malformed and skipped in both modes.
  static constexpr size_t kMaxName = 1024;

  // The finished table as plain arrays, and back (kallsyms_index.h keeps
  // it on disk). Name positions are offsets into the names file.
  struct Arrays {
    uint64_t base = 0;
    bool narrow = false;
    std::vector<uint32_t> lo;      // narrow: address - base, sorted
    std::vector<uint64_t> addrs;   // wide: addresses, sorted
    std::vector<uint32_t> name_pos;
  };
  const std::vector<uint32_t>& offsets() const { return lo_; }
  const std::vector<uint64_t>& addresses() const { return addrs_; }
  const std::vector<uint32_t>& name_positions() const { return name_pos_; }
  uint64_t base() const { return base_; }
  bool narrow() const { return narrow_; }
  // The descriptor names are read from (-1 when they are held in memory).
  int names_fd() const { return file_.get(); }
  // Takes arrays read back from an index (checked by the reader); names
  // come from `names`, the file the positions point into.
  void adopt(Arrays a, UniqueFd names);

  // Building (load_kallsyms): optionally names_in(fd) first, then symbols in
  // file order (`file_offset`: where the name starts), then finish().
  void names_in(UniqueFd fd) { file_ = std::move(fd); }
  void add(uint64_t addr, std::string_view name, uint64_t file_offset);
  // Sorts by address (kallsyms of the core kernel is already sorted: checked,
  // not assumed) and keeps the last alias of each address in file order, as
  // perf does.
  void finish();

 private:
  static constexpr uint32_t kBlockBits = 16;
  static constexpr size_t kBlock = size_t{1} << kBlockBits;
  std::vector<uint64_t> addrs_;  // when not narrow_
  std::vector<uint32_t> lo_;     // narrow_: address - base_
  uint64_t base_ = 0;
  bool narrow_ = false;
  // In memory: block << kBlockBits | offset in block. In the file: offset.
  std::vector<uint32_t> name_pos_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = kBlock;  // bytes used in the last block (full: none yet)
  uint32_t store(std::string_view name);  // into the blocks; kNoName when full
  static constexpr uint32_t kNoName = UINT32_MAX;

  UniqueFd file_;         // valid: names are read from here
  std::unordered_map<uint32_t, std::string_view> read_;  // file mode: index -> name
  StringArena read_names_;
};

// Parses kallsyms text symbols (t/T/w/W) into `syms` (finished), streaming
// the file so its text (5+ MB) is never held whole. With `copy_fd` the text
// is also written there as it is read (the build-id cache copy) and the
// names are read back from it. false and *reason when the file is
// unreadable, the copy cannot be written, or its addresses are hidden
// (kptr_restrict shows zeros to unprivileged readers). Malformed lines are
// skipped.
bool load_kallsyms(const std::string& path, KernelSymbols& syms, std::vector<ModuleRange>& modules,
                   std::string* reason, int copy_fd = -1);
// The module whose symbols surround `addr`, or nullptr.
const ModuleRange* find_module(const std::vector<ModuleRange>& modules, uint64_t addr);

// Parses "START SIZE NAME" lines (hex, 0x optional) into `table` (finalized).
bool load_perf_map(const std::string& path, std::string& text, SymbolTable& table, std::string* reason);

// This process's [vdso] image (the same for every process on this kernel),
// copied out of memory and opened. nullptr and *reason when unavailable.
std::unique_ptr<ElfFile> running_vdso(std::string* reason);

}  // namespace sonde
