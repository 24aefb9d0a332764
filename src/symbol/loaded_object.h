// One object as the Symbolizer holds it once a symbol source has loaded it:
// what the user is told (info), the files its tables point into, and the
// table itself. Internal to src/symbol (symbol_sources.h fills it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "elf/dwarf_info.h"
#include "elf/elf_file.h"
#include "elf/symbol_table.h"
#include "jit/jitdump.h"
#include "symbol/kernel_symbols.h"
#include "symbol/symbol_index.h"
#include "symbol/symbol_index_store.h"
#include "symbol/symbolizer.h"

namespace sonde {

struct LoadedObject {
  ObjectInfo info;
  // Every file whose string tables the symbol table points into.
  std::vector<std::unique_ptr<ElfFile>> files;
  const ElfFile* addr_file = nullptr;   // PT_LOADs used for file offset -> vaddr
  const ElfFile* dwarf_file = nullptr;  // has .debug_info
  std::string original_path;            // for .gnu_debuglink lookups
  SymbolTable table;
  // ELF objects: the finished table as a symbol index (symbol_index.h),
  // mapped from the build-id cache or encoded by this run (`index_bytes`);
  // `table` is then empty. Without one (a table too large to encode) the
  // lookups use `table`.
  std::optional<SymbolIndex> index;
  MappedFile index_file;
  std::string index_bytes;
  std::string text;                     // perf map or jitdump contents (names point here)
  std::unique_ptr<jit::JitDump> jitdump;  // jitdump: its code loads and lines (views into `text`)
  KernelSymbols ksyms;                  // kernel: its own compact table instead of `table`
  std::vector<ModuleRange> modules;     // kernel: address ranges of modules
  // kernel: demangled names by symbol index, only for the symbols looked up
  // (a per-symbol vector would cost 16 bytes for each of 100K+ symbols).
  std::unordered_map<uint32_t, std::string_view> kernel_demangled;
  std::vector<std::string_view> demangled;  // per symbol, filled on first lookup
  std::unique_ptr<DwarfInfo> dwarf;
  bool dwarf_tried = false;
};

}  // namespace sonde
