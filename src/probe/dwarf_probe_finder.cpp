#include "probe/dwarf_probe_finder.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "elf/build_id.h"
#include "elf/symbol_table.h"
#include "probe/dwarf_arg_fetch.h"
#include "probe/dwarf_dies.h"
#include "probe/dwarf_probe_finder_impl.h"
#include "probe/nearest_names.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {

ProbeFinder::Impl::~Impl() {
  if (dw) dwarf_end(dw);
}

void ProbeFinder::Impl::open_debug_info(const std::string& cache_root) {
  looked_in.push_back(binary);
  if (elf->has_dwarf()) {
    dw = dwarf_begin_elf(elf->elf(), DWARF_C_READ, nullptr);
  } else {
    std::vector<std::string> candidates;
    if (!elf->build_id().empty()) {
      std::string hex = elf->build_id().hex();
      candidates.push_back("/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
      candidates.push_back(cache_root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + "/debug");
    }
    if (auto link = elf->debuglink()) {
      std::string dir = binary.substr(0, binary.rfind('/'));
      for (const std::string& d : {dir, dir + "/.debug", "/usr/lib/debug" + dir}) candidates.push_back(d + "/" + link->name);
    }
    for (const auto& c : candidates) {
      looked_in.push_back(c);
      if (access(c.c_str(), R_OK) != 0) continue;
      std::string why;
      auto f = ElfFile::open(c, &why);
      if (!f || !f->has_dwarf() || (!elf->build_id().empty() && !f->build_id().empty() && f->build_id().hex() != elf->build_id().hex()))
        continue;
      debug_elf = std::move(f);
      dw = dwarf_begin_elf(debug_elf->elf(), DWARF_C_READ, nullptr);
      break;
    }
    looked_in.push_back("debuginfod (not asked)");
  }
  if (dw) cfi = dwarf_getcfi_elf(elf->elf());  // .eh_frame of the binary itself
}

void ProbeFinder::Impl::for_each_cu(const std::string& file, const std::function<void(Dwarf_Die*)>& fn) const {
  Dwarf_Off off = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dw, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Off die_off = off + header;
    off = next;
    if (!dwarf_offdie(dw, die_off, &cu)) continue;
    if (!file.empty()) {
      Dwarf_Files* files = nullptr;
      size_t n = 0;
      bool found = false;
      if (dwarf_getsrcfiles(&cu, &files, &n) == 0)
        for (size_t i = 0; i < n && !found; ++i) {
          const char* f = dwarf_filesrc(files, i, nullptr, nullptr);
          found = f && dwarf::path_tail_matches(f, file);
        }
      if (!found) continue;
    }
    fn(&cu);
  }
}

void ProbeFinder::Impl::frame_base(Dwarf_Die* function, Dwarf_Addr addr, Dwarf_Op** ops, size_t* nops) const {
  *ops = nullptr, *nops = 0;
  Dwarf_Attribute attr;
  if (!dwarf_attr(function, DW_AT_frame_base, &attr) || dwarf_getlocation_addr(&attr, addr, ops, nops, 1) <= 0 ||
      *nops == 0) {
    *ops = nullptr, *nops = 0;
    return;
  }
  if (*nops == 1 && (*ops)[0].atom == DW_OP_call_frame_cfa) {
    Dwarf_Frame* frame = nullptr;
    if (!cfi || dwarf_cfi_addrframe(cfi, addr, &frame) != 0 || dwarf_frame_cfa(frame, ops, nops) != 0)
      *ops = nullptr, *nops = 0;  // frames are cached by libdw's CFI; not freed here
  }
}

ProbeFinder::ProbeFinder(const std::string& binary, const std::string& cache_root) : impl_(new Impl) {
  auto real = real_path(binary);
  if (!real) throw_usage("probe: {}: no such file", binary);
  impl_->binary = *real;
  std::string why;
  impl_->elf = ElfFile::open(*real, &why);
  if (!impl_->elf) throw_usage("probe: {}", why);
  impl_->open_debug_info(cache_root);
}

ProbeFinder::~ProbeFinder() = default;

const std::string& ProbeFinder::binary() const { return impl_->binary; }
bool ProbeFinder::has_dwarf() const { return impl_->dw != nullptr; }

std::string ProbeFinder::looked_in() const {
  std::string s;
  for (const auto& l : impl_->looked_in) s += (s.empty() ? "" : ", ") + l;
  return s;
}

}  // namespace sonde::probe
