// ProbeFinder's listings: -F (functions), -V (variables at a probe point),
// -L (a function's probeable lines), in perf 6.1's layouts.
#include <fnmatch.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "elf/symbol_table.h"
#include "probe/dwarf_arg_fetch.h"
#include "probe/dwarf_dies.h"
#include "probe/dwarf_probe_finder_impl.h"
#include "util/error.h"

namespace sonde::probe {

std::vector<std::string> ProbeFinder::functions(const std::string& filter) const {
  SymbolTable table;
  table.add_elf(*impl_->elf, false);
  table.finalize();
  std::set<std::string> names;
  for (const auto& s : table.symbols()) {
    std::string n(s.name);
    bool keep = filter.empty() ? !n.starts_with("_") : fnmatch(filter.c_str(), n.c_str(), 0) == 0;
    if (keep) names.insert(n);
  }
  return {names.begin(), names.end()};
}

std::string ProbeFinder::variables(const ProbeDefinition& def, bool externs) const {
  if (!impl_->dw) throw_runtime("probe: {} has no debug info (looked in {})", impl_->binary, looked_in());
  ProbeDefinition at = def;
  at.args.clear();  // perf shows the variables at the entry, not after the prologue
  auto sites = impl_->sites(at);
  if (sites.empty()) throw_usage("probe: no probe point '{}' in {}", def.point_text(), impl_->binary);
  std::string out = fmt::format("Available variables at {}\n", def.point_text());
  for (auto& site : sites) {
    FetchContext ctx{&site.function, site.addr, nullptr, 0, dwarf::die_name(&site.scope)};
    impl_->frame_base(&site.function, site.addr, &ctx.frame_base, &ctx.frame_base_ops);
    Dwarf_Addr entry = 0;
    dwarf_entrypc(&site.function, &entry);
    out += fmt::format("\t@<{}+{}>\n", dwarf::die_name(&site.function), site.addr - entry);
    std::set<std::string> vars;
    dwarf::for_each_variable(&site.scope, site.addr, true, [&](Dwarf_Die* d) {
      if (has_fetchable_location(d, ctx) || has_static_location(d, ctx))
        vars.insert(dwarf::type_name(d) + "\t" + dwarf::die_name(d));
    });
    Dwarf_Die child;  // --externs: the unit's variables at fixed addresses (perf's die_find_child on the CU)
    if (externs && dwarf_child(&site.cu, &child) == 0) do {
        if (dwarf_tag(&child) == DW_TAG_variable && has_static_location(&child, ctx))
          vars.insert(dwarf::type_name(&child) + "\t" + dwarf::die_name(&child));
      } while (dwarf_siblingof(&child, &child) == 0);
    for (const auto& v : vars) out += "\t\t" + v + "\n";
  }
  return out;
}

namespace {

// Lines of `file` with a statement row in the function that owns its
// address (perf leaves out lines sharing their address with another).
std::set<int> code_lines(Dwarf_Die* cu, Dwarf_Die* function, const std::string& file) {
  std::set<int> lines;
  dwarf::for_each_statement_row(cu, [&](Dwarf_Addr a, int line, const char* f) {
    if (f == file && dwarf_haspc(function, a) == 1 && line_of_address(cu, function, a) == line) lines.insert(line);
  });
  return lines;
}

// The probeable lines of source `file` in a unit: statement rows whose
// address the line table gives back to their line (perf's line_range_walk_cb).
void unit_code_lines(Dwarf_Die* cu, const std::string& file, std::string& path, std::set<int>& lines) {
  dwarf::for_each_statement_row(cu, [&](Dwarf_Addr a, int line, const char* f) {
    Dwarf_Die fn;
    if (!dwarf::path_tail_matches(f, file) || !real_function_at(cu, a, &fn)) return;
    int back = line_of_address(cu, &fn, a);
    if (back != 0 && back != line) return;
    if (path.empty()) path = f;
    lines.insert(line);
  });
}

// perf's show_line_range: the lines from `start` to `end` of `path`, the
// probeable ones numbered (minus `offset`); an open end stops three lines
// after the last probeable one.
std::string range_text(std::string out, const std::string& path, const std::set<int>& code, int start, int end,
                       int offset) {
  std::ifstream src(path);
  if (!src) throw_runtime("probe: cannot read the source {}", path);
  std::vector<std::string> text;
  for (std::string t; std::getline(src, t);) text.push_back(std::move(t));
  auto plain = [&](int n) {
    if (n < 1 || n > static_cast<int>(text.size())) return false;
    out += "         " + text[n - 1] + "\n";
    return true;
  };
  int l = start;
  for (int n : code) {
    if (n < start || n > end || n > static_cast<int>(text.size())) continue;
    for (; l < n; ++l) plain(l);
    out += fmt::format("{:>7}  {}\n", n - offset, text[n - 1]);
    l = n + 1;
  }
  if (end == INT_MAX) end = l + 2;
  for (; l <= end && plain(l); ++l) {
  }
  return out;
}

}  // namespace

std::string ProbeFinder::lines(const LineRange& r) const {
  if (!impl_->dw) throw_runtime("probe: {} has no debug info (looked in {})", impl_->binary, looked_in());
  if (r.function.empty()) {
    std::string path;
    std::set<int> code;
    impl_->for_each_cu(r.file, [&](Dwarf_Die* cu) { unit_code_lines(cu, r.file, path, code); });
    if (code.empty()) throw_usage("probe: no source file '{}' with code in {}", r.file, impl_->binary);
    return range_text(fmt::format("<{}:{}>\n", path, r.start), path, code, r.start, r.end, 0);
  }
  ProbeDefinition at;
  at.function = r.function;
  at.file = r.file;
  auto sites = impl_->sites(at);
  if (sites.empty()) throw_usage("probe: no function '{}' in {}", r.function, impl_->binary);
  ProbeSite& s = sites.front();
  int decl = 0;
  const char* file = dwarf_decl_file(&s.scope);
  if (!file || dwarf_decl_line(&s.scope, &decl) != 0) throw_runtime("probe: {} has no source line", r.function);
  std::set<int> code = code_lines(&s.cu, &s.function, file);
  code.insert(decl);
  const int end = r.end == INT_MAX ? INT_MAX : decl + r.end;
  return range_text(fmt::format("<{}@{}:{}>\n", r.function, file, r.start), file, code, decl + r.start, end, decl);
}

}  // namespace sonde::probe

namespace sonde::probe {

namespace {

// perf's find_probe_point: an inlined copy's entry is shown as its call
// line in the caller; other addresses as a line of the innermost function.
std::string describe_dwarf(Dwarf_Die* cu, Dwarf_Addr addr, const std::string& suffix) {
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, addr, &scopes);
  std::vector<Dwarf_Die> fns;
  for (int i = 0; i < n; ++i)
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram || dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
      fns.push_back(scopes[i]);
  free(scopes);
  if (fns.empty()) return "";
  Dwarf_Die fn = fns.front();
  Dwarf_Addr entry = 0;
  int decl = 0, line = 0;
  Dwarf_Line* l = dwarf_getsrc_die(cu, addr);
  if (l) dwarf_lineno(l, &line);
  if (dwarf_tag(&fn) == DW_TAG_inlined_subroutine && dwarf_entrypc(&fn, &entry) == 0 && entry == addr) {
    Dwarf_Attribute attr;
    Dwarf_Word call = 0;
    if (dwarf_attr(&fn, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &call) == 0) line = static_cast<int>(call);
    Dwarf_Die outer;
    if (!real_function_at(cu, addr, &outer)) return "";
    fn = outer;
  }
  std::string name = dwarf::die_name(&fn);
  const char* file = dwarf_decl_file(&fn);
  std::string at = file ? std::string("@") + file : "";
  if (dwarf_tag(&fn) == DW_TAG_subprogram && dwarf_entrypc(&fn, &entry) == 0 && entry == addr) return name + suffix + at;
  if (line && dwarf_decl_line(&fn, &decl) == 0) return fmt::format("{}:{}{}{}", name, line - decl, suffix, at);
  return name + suffix + at;
}

}  // namespace

std::string ProbeFinder::describe(uint64_t file_offset, bool retprobe) const {
  auto vaddr = impl_->elf->offset_to_vaddr(file_offset);
  if (!vaddr) return fmt::format("0x{:x}", file_offset);
  std::string suffix = retprobe ? "%return" : "";
  Dwarf_Die cu;
  if (impl_->dw && dwarf_addrdie(impl_->dw, *vaddr, &cu)) {
    std::string d = describe_dwarf(&cu, *vaddr, suffix);
    if (!d.empty()) return d;
  }
  SymbolTable table;
  table.add_elf(*impl_->elf, false);
  table.finalize();
  if (const auto* s = table.find(*vaddr))
    return *vaddr == s->addr ? std::string(s->name) + suffix : fmt::format("{}+{}{}", s->name, *vaddr - s->addr, suffix);
  return fmt::format("0x{:x}", file_offset);
}

}  // namespace sonde::probe
