// Where a definition lies: functions (instances and inlined copies), their
// relative lines, absolute source lines, perf's prologue skip at -O0.
#include <fnmatch.h>

#include <algorithm>

#include "probe/dwarf_dies.h"
#include "probe/dwarf_probe_finder_impl.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::probe {

// The real (not inlined) function holding addr: a CU-level subprogram with
// code there. (dwarf_getscopes gives an inlined copy's abstract scopes, not
// its caller's.)
bool real_function_at(Dwarf_Die* cu, Dwarf_Addr addr, Dwarf_Die* out) {
  Dwarf_Die child;
  if (dwarf_child(cu, &child) != 0) return false;
  do {
    if (dwarf::is_function_instance(&child) && dwarf_haspc(&child, addr) == 1) return *out = child, true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// perf's cu_find_lineinfo: the declaration line at a function's entry,
// else the first statement row at exactly addr; 0 when there is none.
int line_of_address(Dwarf_Die* cu, Dwarf_Die* function, Dwarf_Addr addr) {
  Dwarf_Addr entry = 0;
  int line = 0;
  if (dwarf_entrypc(function, &entry) == 0 && entry == addr && dwarf_decl_line(function, &line) == 0) return line;
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (dwarf_getsrclines(cu, &lines, &n) != 0) return 0;
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    Dwarf_Addr a = 0;
    bool stmt = false;
    if (dwarf_lineaddr(l, &a) != 0 || a != addr || dwarf_linebeginstatement(l, &stmt) != 0 || !stmt) continue;
    return dwarf_lineno(l, &line) == 0 ? line : 0;
  }
  return 0;
}

namespace {

// perf's die_skip_prologue: the first line-table row after the entry's
// with another line number, inside the function.
Dwarf_Addr skip_prologue(Dwarf_Die* cu, Dwarf_Die* function, Dwarf_Addr entry) {
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  Dwarf_Addr high = 0;
  if (dwarf_getsrclines(cu, &lines, &n) != 0 || dwarf_highpc(function, &high) != 0) return entry;
  size_t i = 0;
  int entry_line = -1;
  for (; i < n; ++i) {
    Dwarf_Addr a = 0;
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    if (dwarf_lineaddr(l, &a) == 0 && a == entry) {
      dwarf_lineno(l, &entry_line);
      break;
    }
  }
  for (++i; i < n; ++i) {
    Dwarf_Addr a = 0;
    int line = 0;
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    if (dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &line) != 0 || a >= high) break;
    if (line != entry_line && a > entry) return a;
  }
  return entry;
}

struct LineQuery {
  std::string file;
  int line = 0;
};

// Statement rows of the CU's line table for file:line, in table order.
std::vector<Dwarf_Addr> line_addresses(Dwarf_Die* cu, const LineQuery& q) {
  std::vector<Dwarf_Addr> out;
  dwarf::for_each_statement_row(cu, [&](Dwarf_Addr a, int line, const char* f) {
    if (line == q.line && dwarf::path_tail_matches(f, q.file) && std::find(out.begin(), out.end(), a) == out.end())
      out.push_back(a);
  });
  return out;
}

// perf refuses a line whose address the line table gives to another line.
void check_line_owns_address(ProbeSite& s, const std::string& func, int decl) {
  int other = line_of_address(&s.cu, &s.function, s.addr);
  if (other == 0 || other == s.line) return;
  if (func.empty())
    throw_usage("probe: line {} shares its address with line {}: probe line {} instead", s.line, other, other);
  throw_usage("probe: {}:{} shares its address with other lines: probe {}:{} instead", func, s.line - decl, func,
              other - decl);
}

// The innermost function or inlined instance at addr declared before `line`.
bool scope_for_line(Dwarf_Die* cu, Dwarf_Addr addr, int line, Dwarf_Die* out) {
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, addr, &scopes);
  int best = -1;
  for (int i = 0; i < n; ++i) {
    int tag = dwarf_tag(&scopes[i]), decl = 0;
    if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
    if (dwarf_decl_line(&scopes[i], &decl) != 0 || decl >= line) continue;
    if (best < 0 || decl > best) best = decl, *out = scopes[i];
  }
  free(scopes);
  return best >= 0;
}

void add_line_sites(Dwarf_Die* cu, const ProbeDefinition& def, std::vector<ProbeSite>& out) {
  for (Dwarf_Addr a : line_addresses(cu, {def.file, def.line})) {
    ProbeSite s{*cu, {}, {}, a, def.line, def.file};
    if (!scope_for_line(cu, a, def.line, &s.scope) || !real_function_at(cu, a, &s.function)) continue;
    check_line_owns_address(s, "", 0);
    out.push_back(s);
  }
}

// FUNC:RLN in one function instance (or inlined copy) `scope`.
void add_relative_line_sites(Dwarf_Die* cu, Dwarf_Die* scope, const ProbeDefinition& def,
                             std::vector<ProbeSite>& out) {
  int decl = 0;
  const char* file = dwarf_decl_file(scope);
  if (dwarf_decl_line(scope, &decl) != 0 || !file) return;
  std::string name = dwarf::die_name(scope);
  for (Dwarf_Addr a : line_addresses(cu, {file, decl + def.line})) {
    if (dwarf_haspc(scope, a) != 1) continue;
    ProbeSite s{*cu, {}, *scope, a, decl + def.line, file};
    if (!real_function_at(cu, a, &s.function)) continue;
    check_line_owns_address(s, name, decl);
    out.push_back(s);
  }
}

// FUNC;PTN in `scope`, or SRC;PTN in the unit (scope null): each address
// probed in the real function holding it.
void add_lazy_sites(Dwarf_Die* cu, Dwarf_Die* scope, const ProbeDefinition& def, std::vector<ProbeSite>& out) {
  const char* decl_file = scope ? dwarf_decl_file(scope) : nullptr;
  if (scope && !decl_file) return;
  std::string file = scope ? decl_file : def.file;
  for (Dwarf_Addr a : lazy_line_addresses(cu, scope, file, def.lazy)) {
    ProbeSite s{*cu, {}, {}, a, 0, file};
    if (!real_function_at(cu, a, &s.function)) continue;
    s.scope = scope ? *scope : s.function;
    out.push_back(s);
  }
}

void add_entry_site(Dwarf_Die* cu, Dwarf_Die* scope, const ProbeDefinition& def, std::vector<ProbeSite>& out) {
  if (!def.lazy.empty()) return add_lazy_sites(cu, scope, def, out);
  if (def.line != 0) return add_relative_line_sites(cu, scope, def, out);
  ProbeSite s{*cu, {}, *scope, 0, 0, ""};
  if (dwarf_entrypc(scope, &s.addr) != 0 || s.addr == 0) return;
  if (!real_function_at(cu, s.addr, &s.function)) return;
  bool inlined = dwarf_tag(scope) == DW_TAG_inlined_subroutine;
  if (def.retprobe && inlined)
    throw_usage("probe: {}%return: {} is inlined here and has no return", def.function, dwarf::die_name(scope));
  if (!inlined && !def.retprobe && !def.has_offset && def.has_c_args() && !dwarf::cu_is_optimized(cu)) {
    Dwarf_Addr entry = s.addr;
    s.addr = skip_prologue(cu, scope, s.addr);
    // As perf: arguments are read after the prologue has stored them.
    note("{} is compiled without optimization: probing after its prologue (use {}+0 for the entry at 0x{:x})",
         dwarf::die_name(scope), dwarf::die_name(scope), entry);
  }
  if (def.has_offset) {
    Dwarf_Addr high = 0;
    if (dwarf_highpc(scope, &high) == 0 && s.addr + def.offset >= high)
      throw_usage("probe: offset {} is past the end of {} ({} bytes)", def.offset, dwarf::die_name(scope),
                  high - s.addr);
    s.addr += def.offset;
  }
  out.push_back(s);
}

struct InlineWalk {
  Dwarf_Die* cu;
  const ProbeDefinition* def;
  std::vector<ProbeSite>* out;
};

int on_inline_instance(Dwarf_Die* instance, void* arg) {
  auto* w = static_cast<InlineWalk*>(arg);
  add_entry_site(w->cu, instance, *w->def, *w->out);
  return DWARF_CB_OK;
}

void add_function_sites(Dwarf_Die* cu, const ProbeDefinition& def, std::vector<ProbeSite>& out) {
  Dwarf_Die child;
  if (dwarf_child(cu, &child) != 0) return;
  do {
    if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
    std::string name = dwarf::die_name(&child);
    if (name.empty() || fnmatch(def.function.c_str(), name.c_str(), 0) != 0) continue;
    const char* decl_file = dwarf_decl_file(&child);
    if (!def.file.empty() && (!decl_file || !dwarf::path_tail_matches(decl_file, def.file))) continue;
    if (dwarf::is_function_instance(&child)) {
      add_entry_site(cu, &child, def, out);
    } else if (dwarf_func_inline(&child)) {
      InlineWalk w{cu, &def, &out};
      dwarf_func_inline_instances(&child, on_inline_instance, &w);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

std::vector<ProbeSite> ProbeFinder::Impl::sites(const ProbeDefinition& def) const {
  std::vector<ProbeSite> out;
  for_each_cu(def.file, [&](Dwarf_Die* cu) {
    if (def.function.empty() && !def.lazy.empty())
      add_lazy_sites(cu, nullptr, def, out);
    else if (def.absolute_line)
      add_line_sites(cu, def, out);
    else
      add_function_sites(cu, def, out);
  });
  return out;
}

std::vector<std::string> ProbeFinder::Impl::dwarf_function_names() const {
  std::vector<std::string> names;
  for_each_cu("", [&](Dwarf_Die* cu) {
    Dwarf_Die child;
    if (dwarf_child(cu, &child) != 0) return;
    do {
      if (dwarf_tag(&child) == DW_TAG_subprogram && !dwarf_hasattr(&child, DW_AT_declaration))
        names.push_back(dwarf::die_name(&child));
    } while (dwarf_siblingof(&child, &child) == 0);
  });
  return names;
}

}  // namespace sonde::probe
