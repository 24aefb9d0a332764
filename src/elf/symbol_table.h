// A sorted function-symbol table for one object, searched by binary search.
// Names are views: into the ELF string tables (the ElfFiles added must outlive
// the table) or into the table's own arena for synthesized names (func@plt,
// kallsyms, perf maps).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "elf/string_arena.h"

namespace sonde {

class ElfFile;

struct TableSymbol {
  uint64_t addr = 0;
  uint64_t size = 0;  // 0 only while building; finalize() fills gaps
  std::string_view name;
};

class SymbolTable {
 public:
  // Function symbols (STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE labels in
  // executable sections, as perf keeps them) of .symtab, then .dynsym, and one
  // `name@plt` per PLT slot (.plt / .plt.sec from .rela.plt). Addresses are
  // link-time virtual addresses.
  void add_elf(const ElfFile& file, bool with_plt = true);
  // A symbol with a name the table must own (copied into its arena).
  void add_owned(uint64_t addr, uint64_t size, std::string_view name);
  // A symbol whose name storage outlives the table.
  void add_view(uint64_t addr, uint64_t size, std::string_view name);

  // Sorts by address, keeps one name per address (perf's preference:
  // sized, non-weak, global, fewer leading underscores, longer), and gives zero-sized symbols the gap to the next one (capped at
  // `max_gap` so a stray label does not swallow unrelated code).
  // kLastWins is for kallsyms, which has no sizes: perf keeps the last alias
  // in file order there.
  enum class Aliases { kPerfElf, kLastWins };
  void finalize(uint64_t max_gap = 4096, Aliases rule = Aliases::kPerfElf);

  // The symbol containing `vaddr`, or nullptr. Requires finalize().
  const TableSymbol* find(uint64_t vaddr) const;
  size_t index_of(const TableSymbol* s) const { return static_cast<size_t>(s - syms_.data()); }

  std::span<const TableSymbol> symbols() const { return syms_; }
  size_t size() const { return syms_.size(); }
  bool empty() const { return syms_.empty(); }

 private:
  std::vector<TableSymbol> syms_;
  std::vector<uint8_t> prio_;  // while building: binding rank, lower wins among aliases
  StringArena arena_;
};

}  // namespace sonde
