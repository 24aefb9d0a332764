// ProbeFinder's state, shared by its files (dwarf_probe_finder.cpp: opening
// and sites; dwarf_probe_listing.cpp: -F, -V, -L). Internal to src/probe.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "probe/dwarf_probe_finder.h"

namespace sonde::probe {

// One place a definition resolves to.
struct ProbeSite {
  Dwarf_Die cu;
  Dwarf_Die function;  // the real subprogram holding the address
  Dwarf_Die scope;     // where variables are looked up (function or inlined instance)
  Dwarf_Addr addr = 0;
  int line = 0;        // source line (0 = function entry)
  std::string file;
};

// The real (not inlined) function holding addr; false if none.
bool real_function_at(Dwarf_Die* cu, Dwarf_Addr addr, Dwarf_Die* out);

// perf's cu_find_lineinfo: the line an address belongs to (the declaration
// line at a function's entry, else the first statement row there); 0 if none.
int line_of_address(Dwarf_Die* cu, Dwarf_Die* function, Dwarf_Addr addr);

// The addresses perf gives the source lines matching lazy pattern `pattern`
// (dwarf_lazy_lines.cpp): in `scope` (a function or an inlined copy, its
// source `file`), or in the whole unit when scope is null (`file` a suffix).
std::vector<Dwarf_Addr> lazy_line_addresses(Dwarf_Die* cu, Dwarf_Die* scope, const std::string& file,
                                            const std::string& pattern);

struct ProbeFinder::Impl {
  std::string binary;
  std::unique_ptr<ElfFile> elf;
  std::unique_ptr<ElfFile> debug_elf;  // null when the binary has its own DWARF
  Dwarf* dw = nullptr;
  Dwarf_CFI* cfi = nullptr;
  std::vector<std::string> looked_in;

  ~Impl();
  void open_debug_info(const std::string& cache_root);
  // Calls fn for each CU (whose line table names `file`, when given).
  void for_each_cu(const std::string& file, const std::function<void(Dwarf_Die*)>& fn) const;
  std::vector<ProbeSite> sites(const ProbeDefinition& def) const;
  std::vector<std::string> dwarf_function_names() const;
  void frame_base(Dwarf_Die* function, Dwarf_Addr addr, Dwarf_Op** ops, size_t* nops) const;
};

}  // namespace sonde::probe
