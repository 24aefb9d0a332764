// Small libdw helpers shared by the probe finder's files (internal to
// src/probe): names, types, scopes and the x86-64 register names uprobes use.
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <functional>
#include <optional>
#include <string>

namespace sonde::probe::dwarf {

std::string die_name(Dwarf_Die* die);  // "" when unnamed
// DW_AT_type, following typedefs and const/volatile/restrict/atomic.
bool real_type(Dwarf_Die* die, Dwarf_Die* out);
// DW_AT_type as written (no peeling).
bool direct_type(Dwarf_Die* die, Dwarf_Die* out);
// "struct request*", "int", "char**" (perf -V's type names).
std::string type_name(Dwarf_Die* var);
bool is_signed_type(Dwarf_Die* type);
// A subprogram with code (not a declaration, not only an abstract inline).
bool is_function_instance(Dwarf_Die* die);
// Whether gcc compiled this CU with optimization (DW_AT_producer's last -O).
bool cu_is_optimized(Dwarf_Die* cu);
// A variable or parameter named `name` visible at `addr` in `scope`
// (nested lexical blocks that hold addr), else a global of the CU.
bool find_variable(Dwarf_Die* scope, Dwarf_Die* cu, const std::string& name, Dwarf_Addr addr, Dwarf_Die* out);
// Calls fn for each parameter (and, with vars, local variable) of scope at addr.
void for_each_variable(Dwarf_Die* scope, Dwarf_Addr addr, bool vars, const std::function<void(Dwarf_Die*)>& fn);
// Calls fn(address, line, file) for each statement row of the CU's line
// table (end-of-sequence rows left out), in table order.
void for_each_statement_row(Dwarf_Die* cu, const std::function<void(Dwarf_Addr, int, const char*)>& fn);
// The uprobe register name of an x86-64 DWARF register number ("%di"); "" if none.
std::string x86_register(unsigned regno);
// Whether `file` ends with `suffix` at a path component boundary.
bool path_tail_matches(const std::string& file, const std::string& suffix);

}  // namespace sonde::probe::dwarf
