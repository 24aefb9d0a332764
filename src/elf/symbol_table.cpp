#include "elf/symbol_table.h"

#include <gelf.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "elf/elf_file.h"

namespace sonde {

namespace {

// Aliases at one address are resolved like perf's choose_best_symbol(), so
// reports name the same function perf does: non-weak before weak, global
// before local, fewer leading underscores, then the longer name.
constexpr uint8_t kRankGlobal = 0;
constexpr uint8_t kRankLocal = 1;
constexpr uint8_t kRankWeak = 2;

size_t leading_underscores(std::string_view n) {
  size_t i = 0;
  while (i < n.size() && n[i] == '_') ++i;
  return i;
}

bool is_function(Elf* elf, const GElf_Sym& s) {
  int t = GELF_ST_TYPE(s.st_info);
  if (s.st_shndx == SHN_UNDEF || s.st_value == 0) return false;
  if (t == STT_FUNC || t == STT_GNU_IFUNC) return true;
  // Assembly entry points (_start, _dl_start_user) are untyped labels; perf
  // names them, so must we.
  if (t != STT_NOTYPE || s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE) return false;
  GElf_Shdr sh;
  Elf_Scn* scn = elf_getscn(elf, s.st_shndx);
  return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

}  // namespace

void SymbolTable::add_view(uint64_t addr, uint64_t size, std::string_view name) {
  syms_.push_back({addr, size, name});
  prio_.push_back(kRankGlobal);
}

void SymbolTable::add_owned(uint64_t addr, uint64_t size, std::string_view name) {
  add_view(addr, size, arena_.add(name));
}

namespace {

// PLT slots: .rela.plt entry i is served by slot i of .plt.sec (IBT
// layout) or slot i+1 of .plt (slot 0 is the resolver stub). x86-64/i386
// slots are 16 bytes.
void add_plt_slots(const ElfFile& file, Elf_Scn* dynsym_scn, SymbolTable& table) {
  Elf* elf = file.elf();
  auto rela = file.section_info(".rela.plt");
  auto plt_sec = file.section_info(".plt.sec");
  auto plt = file.section_info(".plt");
  if (!rela || rela->type != SHT_RELA || !dynsym_scn || (!plt && !plt_sec)) return;
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)) return;
  Elf_Scn* rela_scn = nullptr;
  {
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
    Elf_Scn* s = nullptr;
    while ((s = elf_nextscn(elf, s)) != nullptr) {
      GElf_Shdr sh;
      const char* n = gelf_getshdr(s, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : nullptr;
      if (n && std::string_view(n) == ".rela.plt") {
        rela_scn = s;
        break;
      }
    }
  }
  if (!rela_scn) return;
  GElf_Shdr dyn_sh;
  Elf_Data* rdata = elf_getdata(rela_scn, nullptr);
  Elf_Data* ddata = elf_getdata(dynsym_scn, nullptr);
  if (!rdata || !rdata->d_buf || !ddata || !ddata->d_buf || !gelf_getshdr(dynsym_scn, &dyn_sh)) return;
  const uint64_t slot = 16;
  const uint64_t base = plt_sec ? plt_sec->addr : plt->addr + slot;
  const uint64_t limit = plt_sec ? plt_sec->addr + plt_sec->size : plt->addr + plt->size;
  size_t n = rela->entsize ? rela->size / rela->entsize : 0;
  std::string name;
  for (size_t i = 0; i < n; ++i) {
    GElf_Rela r;
    if (!gelf_getrela(rdata, static_cast<int>(i), &r)) break;
    uint64_t addr = base + i * slot;
    if (addr + slot > limit) break;
    GElf_Sym s;
    size_t symi = GELF_R_SYM(r.r_info);
    // IRELATIVE slots have no symbol (index 0): perf 6.1 calls them "@plt",
    // and so do we, so reports agree.
    const char* sn = "";
    if (symi != 0) {
      if (!gelf_getsym(ddata, static_cast<int>(symi), &s)) continue;
      sn = elf_strptr(elf, dyn_sh.sh_link, s.st_name);
      if (!sn) continue;
    }
    name.assign(sn).append("@plt");
    table.add_owned(addr, slot, name);
  }
}

}  // namespace

void SymbolTable::add_elf(const ElfFile& file, bool with_plt) {
  Elf* elf = file.elf();
  Elf_Scn* dynsym_scn = nullptr;
  // .symtab first: among equally good aliases the earlier one wins, and perf
  // reads .symtab alone when there is one.
  std::vector<Elf_Scn*> tables;
  for (uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) && sh.sh_type == want) tables.push_back(scn);
      if (want == SHT_DYNSYM && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) dynsym_scn = scn;
    }
  }
  for (Elf_Scn* scn : tables) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf || sh.sh_entsize == 0) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 1; i < n; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(data, static_cast<int>(i), &s) || !is_function(elf, s)) continue;
      // elf_strptr checks st_name against the string table's bounds.
      const char* name = elf_strptr(elf, sh.sh_link, s.st_name);
      if (!name || !*name) continue;
      syms_.push_back({s.st_value, s.st_size, name});
      int bind = GELF_ST_BIND(s.st_info);
      prio_.push_back(bind == STB_WEAK ? kRankWeak : bind == STB_LOCAL ? kRankLocal : kRankGlobal);
    }
  }
  if (with_plt) add_plt_slots(file, dynsym_scn, *this);
}

void SymbolTable::finalize(uint64_t max_gap, Aliases rule) {
  std::vector<size_t> order(syms_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TableSymbol& x = syms_[a];
    const TableSymbol& y = syms_[b];
    if (x.addr != y.addr) return x.addr < y.addr;
    if (rule == Aliases::kLastWins) return a > b;
    if ((x.size == 0) != (y.size == 0)) return x.size != 0;
    if (prio_[a] != prio_[b]) return prio_[a] < prio_[b];
    size_t ux = leading_underscores(x.name), uy = leading_underscores(y.name);
    if (ux != uy) return ux < uy;
    if (x.name.size() != y.name.size()) return x.name.size() > y.name.size();
    return a < b;  // then the first in table order, like perf
  });
  std::vector<TableSymbol> out;
  out.reserve(syms_.size());
  for (size_t i : order) {
    const TableSymbol& s = syms_[i];
    if (!out.empty() && out.back().addr == s.addr) {
      if (out.back().size == 0) out.back().size = s.size;
      continue;
    }
    out.push_back(s);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].size != 0) continue;
    uint64_t gap = i + 1 < out.size() ? out[i + 1].addr - out[i].addr : max_gap;
    out[i].size = std::min(gap, max_gap);
  }
  syms_ = std::move(out);
  prio_.clear();
  prio_.shrink_to_fit();
}

const TableSymbol* SymbolTable::find(uint64_t vaddr) const {
  auto it = std::upper_bound(syms_.begin(), syms_.end(), vaddr,
                             [](uint64_t v, const TableSymbol& s) { return v < s.addr; });
  if (it == syms_.begin()) return nullptr;
  --it;
  if (vaddr - it->addr < it->size) return &*it;
  return nullptr;
}

}  // namespace sonde
