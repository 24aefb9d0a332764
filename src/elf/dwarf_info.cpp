#include "elf/dwarf_info.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdlib>

#include "elf/elf_file.h"
#include "util/error.h"

namespace sonde {

std::unique_ptr<DwarfInfo> DwarfInfo::open(const ElfFile& file, std::string* reason) {
  if (!file.has_dwarf()) {
    if (reason) *reason = fmt::format("{}: no DWARF", file.path());
    return nullptr;
  }
  std::unique_ptr<DwarfInfo> d(new DwarfInfo);
  d->dw_ = dwarf_begin_elf(file.elf(), DWARF_C_READ, nullptr);
  if (!d->dw_) {
    if (reason) *reason = fmt::format("{}: {}", file.path(), dwarf_errmsg(-1));
    return nullptr;
  }
  return d;
}

DwarfInfo::~DwarfInfo() {
  if (dw_) dwarf_end(dw_);
}

std::optional<SourceLine> DwarfInfo::line(uint64_t vaddr) const {
  Dwarf_Die cu;
  if (!dwarf_addrdie(dw_, vaddr, &cu)) return std::nullopt;
  Dwarf_Line* l = dwarf_getsrc_die(&cu, vaddr);
  if (!l) return std::nullopt;
  const char* file = dwarf_linesrc(l, nullptr, nullptr);
  int line = 0, col = 0;
  dwarf_lineno(l, &line);
  dwarf_linecol(l, &col);
  if (!file) return std::nullopt;
  return SourceLine{file, static_cast<uint32_t>(line), static_cast<uint32_t>(col)};
}

size_t DwarfInfo::inline_frames(uint64_t vaddr, std::vector<InlineFrame>& out, bool with_function) const {
  out.clear();
  Dwarf_Die cu;
  if (!dwarf_addrdie(dw_, vaddr, &cu)) return 0;
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(&cu, vaddr, &scopes);
  if (n <= 0) return 0;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0) files = nullptr;
  for (int i = 0; i < n; ++i) {
    Dwarf_Die* s = &scopes[i];
    const int tag = dwarf_tag(s);
    const bool holder = with_function && tag == DW_TAG_subprogram;
    if (tag != DW_TAG_inlined_subroutine && !holder) continue;
    InlineFrame f;
    f.inlined = !holder;
    Dwarf_Attribute attr;
    // The linkage name (mangled) keeps C++ overloads apart; the symbolizer
    // demangles it like any other name.
    const char* name = nullptr;
    if (dwarf_attr_integrate(s, DW_AT_linkage_name, &attr)) name = dwarf_formstring(&attr);
    if (!name) name = dwarf_diename(s);
    f.function = name ? name : "";
    Dwarf_Word w = 0;
    if (dwarf_attr(s, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &w) == 0 && files && w < nfiles) {
      const char* cf = dwarf_filesrc(files, w, nullptr, nullptr);
      if (cf) f.call_file = cf;
    }
    if (dwarf_attr(s, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &w) == 0)
      f.call_line = static_cast<uint32_t>(w);
    out.push_back(f);
    if (holder) break;  // scopes outside the function are not frames
  }
  free(scopes);
  return out.size();
}

}  // namespace sonde
