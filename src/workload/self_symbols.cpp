#include "workload/self_symbols.h"

#include "elf/elf_file.h"
#include "elf/symbol_table.h"
#include "util/error.h"

namespace sonde::workload {

std::vector<SelfSymbol> self_symbols() {
  std::string reason;
  auto elf = ElfFile::open("/proc/self/exe", &reason);
  if (!elf) throw_runtime("cannot read this program's symbols: {}", reason);
  SymbolTable table;
  table.add_elf(*elf, /*with_plt=*/false);
  table.finalize();
  std::vector<SelfSymbol> out;
  out.reserve(table.size());
  for (const TableSymbol& s : table.symbols()) out.push_back({s.addr, s.addr + s.size, std::string(s.name)});
  return out;
}

}  // namespace sonde::workload
