// `perf kallsyms SYMBOL`: where a kernel symbol is, from /proc/kallsyms text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sonde::kernel {

struct KallsymsEntry {
  std::string module;  // "" for the kernel itself, else the module's name
  uint64_t start = 0;
  uint64_t end = 0;    // the next symbol's start in the same object, as perf
};

// The first symbol named `name` among the kept types (text, weak, data and
// bss: perf's filter), in the kernel and then in modules. Malformed lines are
// skipped.
std::optional<KallsymsEntry> find_kallsyms_symbol(std::string_view kallsyms_text, std::string_view name);

// perf's line for a found symbol:
// "schedule: [kernel] [kernel.kallsyms] 0xffffffff8224a190-0xffffffff8224a230 (0x...-0x...)".
std::string format_kallsyms_entry(std::string_view name, const KallsymsEntry& e);

}  // namespace sonde::kernel
