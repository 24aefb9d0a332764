#include "annotate/data_symbols.h"

#include <gelf.h>

#include <algorithm>

#include <fmt/format.h>

#include "elf/elf_file.h"

namespace sonde::annotate {

DataSymbols::DataSymbols(const ElfFile& file) {
  Elf* elf = file.elf();
  for (uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data || !data->d_buf) continue;
      const size_t n = std::min<size_t>(sh.sh_size / sh.sh_entsize, data->d_size / sh.sh_entsize);
      for (size_t i = 1; i < n; ++i) {
        GElf_Sym s;
        if (!gelf_getsym(data, static_cast<int>(i), &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT || s.st_size == 0)
          continue;
        const char* name = elf_strptr(elf, sh.sh_link, s.st_name);  // bounds-checked by libelf
        if (name && *name) objects_.push_back({s.st_value, s.st_size, name});
      }
    }
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
