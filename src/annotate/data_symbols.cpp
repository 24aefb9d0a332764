#include "annotate/data_symbols.h"

#include <elf.h>

#include <algorithm>

#include <fmt/format.h>

#include "elf/elf_file.h"

namespace sonde::annotate {

DataSymbols::DataSymbols(const ElfFile& file) {
  for (uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    file.for_each_symbol(want, [&](const ElfSymbol& s) {
      if (s.type == STT_OBJECT && s.size != 0 && !s.name.empty()) objects_.push_back({s.value, s.size, std::string(s.name)});
    });
    if (!objects_.empty()) break;  // .symtab has them all; .dynsym only when it is all there is
  }
  std::sort(objects_.begin(), objects_.end(), [](const Object& a, const Object& b) { return a.addr < b.addr; });
}

std::optional<std::string> DataSymbols::name_at(uint64_t addr, bool within) const {
  auto it = std::upper_bound(objects_.begin(), objects_.end(), addr,
                             [](uint64_t a, const Object& o) { return a < o.addr; });
  if (it == objects_.begin()) return std::nullopt;
  --it;
  if (within && addr - it->addr >= it->size) return std::nullopt;
  if (addr == it->addr) return it->name;
  return fmt::format("{}+{:#x}", it->name, addr - it->addr);
}

}  // namespace sonde::annotate
