// Text symbol sources that are not ELF files: /proc/kallsyms (kernel and
// modules) and perf's JIT maps (/tmp/perf-PID.map). Names are views into
// `text`, which the caller keeps alive next to the table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.h"
#include "elf/symbol_table.h"

namespace sonde {

struct ModuleRange {
  uint64_t start = 0;
  uint64_t end = 0;       // one past the last symbol's start
  std::string_view name;  // "[ext4]"
};

// Parses kallsyms text symbols (t/T/w/W) into `table` (finalized). false and
// *reason when the file is unreadable or its addresses are hidden
// (kptr_restrict shows zeros to unprivileged readers).
bool load_kallsyms(const std::string& path, std::string& text, SymbolTable& table,
                   std::vector<ModuleRange>& modules, std::string* reason);
// The module whose symbols surround `addr`, or nullptr.
const ModuleRange* find_module(const std::vector<ModuleRange>& modules, uint64_t addr);

// Parses "START SIZE NAME" lines (hex, 0x optional) into `table` (finalized).
bool load_perf_map(const std::string& path, std::string& text, SymbolTable& table, std::string* reason);

// This process's [vdso] image (the same for every process on this kernel),
// copied out of memory and opened. nullptr and *reason when unavailable.
std::unique_ptr<ElfFile> running_vdso(std::string* reason);

}  // namespace sonde
