// ProbeFinder::find: sites to TraceProbes (names, file offsets, arguments),
// and the symbol-table route for binaries without DWARF.
#include <fnmatch.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "elf/symbol_table.h"
#include "probe/dwarf_arg_fetch.h"
#include "probe/dwarf_dies.h"
#include "probe/dwarf_probe_finder_impl.h"
#include "probe/nearest_names.h"
#include "util/error.h"

namespace sonde::probe {
namespace {

bool is_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// perf's event name: EVENT= (with __return for returns), else the function (FUNC_L<line> for a
// relative line), the enclosing function for SRC:LINE, __return for returns.
std::string event_name(const ProbeDefinition& def, const std::string& site_function) {
  if (!def.event.empty()) return def.retprobe ? def.event + "__return" : def.event;  // perf 6.1 does so too
  std::string base = def.function.empty() || is_glob(def.function) ? site_function : def.function;
  if (!def.function.empty() && def.line != 0) base += "_L" + std::to_string(def.line);
  if (def.retprobe) base += "__return";
  return base;
}

std::vector<std::string> variable_names(Dwarf_Die* scope, Dwarf_Addr addr) {
  std::vector<std::string> names;
  dwarf::for_each_variable(scope, addr, true, [&](Dwarf_Die* d) { names.push_back(dwarf::die_name(d)); });
  return names;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// $params / $vars: every parameter (and local) with a location at the probe.
void expand_special(const std::string& which, ProbeSite& site, const FetchContext& ctx, std::vector<ProbeArgSpec>& out) {
  dwarf::for_each_variable(&site.scope, site.addr, which == "$vars", [&](Dwarf_Die* d) {
    if (!has_fetchable_location(d, ctx)) return;
    ProbeArgSpec a;
    a.var = dwarf::die_name(d);
    out.push_back(a);
  });
}

std::vector<TraceArg> site_args(const ProbeDefinition& def, ProbeSite& site, const FetchContext& ctx) {
  std::vector<ProbeArgSpec> specs;
  for (const auto& a : def.args) {
    if (a.var == "$params" || a.var == "$vars")
      expand_special(a.var, site, ctx, specs);
    else
      specs.push_back(a);
  }
  std::vector<TraceArg> out;
  for (const auto& a : specs) {
    if (a.raw()) {
      if (a.var == "$retval" && !def.retprobe) throw_usage("probe: $retval is only for %return probes");
      out.push_back({a.name, a.var, a.type});
      continue;
    }
    Dwarf_Die var;
    if (!dwarf::find_variable(&site.scope, &site.cu, a.var, site.addr, &var))
      throw_usage("probe: no variable '{}' at {} (there: {})", a.var, ctx.where,
                  join(variable_names(&site.scope, site.addr)));
    out.push_back(fetch_variable(&var, a, ctx));
  }
  return out;
}

std::string point_text(const ProbeDefinition& def, ProbeSite& site, const std::string& function) {
  if (def.absolute_line) return fmt::format("{}:{}", def.file, def.line);
  std::string s = function;
  if (def.line) s += fmt::format(":{}", def.line);
  if (def.has_offset) s += fmt::format("+{}", def.offset);
  if (def.retprobe) s += "%return";
  (void)site;
  return s;
}

// perf's "with" text: fields get their argument name (id=req->id).
std::string with_text(const ProbeDefinition& def) {
  std::string s;
  for (const auto& a : def.args) {
    if (!s.empty()) s += ' ';
    if (a.name.empty() && !a.fields.empty()) s.append(default_arg_name(a)).append("=");
    s += a.text();
  }
  return s;
}

}  // namespace

std::vector<TraceProbe> ProbeFinder::find(const ProbeDefinition& def) const {
  if (!impl_->dw) {
    if (def.has_c_args() || def.line || !def.file.empty())
      throw_runtime("probe: {} has no debug info (looked in {}): '{}' needs DWARF; a bare function name probes its entry",
                    impl_->binary, looked_in(), def.text);
    return find_in_symbols(def);
  }
  auto sites = impl_->sites(def);
  bool symbol_only = !def.has_c_args() && !def.line && !def.absolute_line && def.file.empty() && def.lazy.empty();
  if (sites.empty() && symbol_only) {
    // An alias DWARF does not name (libc's inet_pton is __inet_pton): perf
    // takes the symbol table then, as for a binary without DWARF.
    try {
      return find_in_symbols(def);
    } catch (const Error&) {
      // reported below with DWARF's names
    }
  }
  if (sites.empty()) {
    if (def.absolute_line) throw_usage("probe: no code for line {} of {} in {}", def.line, def.file, impl_->binary);
    if (!def.lazy.empty())
      throw_usage("probe: no line of {} matching '{}' has code in {}", def.function.empty() ? def.file : def.function,
                  def.lazy, impl_->binary);
    if (!def.function.empty() && def.line)
      throw_usage("probe: {} has no code at line {} of {} in {}", def.function, def.line, def.function, impl_->binary);
    auto names = impl_->dwarf_function_names();
    if (std::find(names.begin(), names.end(), def.function) != names.end())
      throw_usage("probe: function '{}' has no code in {} (inlined and optimized away)", def.function, impl_->binary);
    throw_usage("probe: no function '{}' in {}'s debug info (nearest: {})", def.function, impl_->binary,
                nearest_names(def.function, names));
  }
  std::vector<TraceProbe> out;
  for (auto& site : sites) {
    TraceProbe p;
    std::string function = dwarf::die_name(&site.scope);
    FetchContext ctx;
    ctx.function = &site.function;
    ctx.addr = site.addr;
    ctx.where = function;
    impl_->frame_base(&site.function, site.addr, &ctx.frame_base, &ctx.frame_base_ops);
    p.retprobe = def.retprobe;
    p.group = def.group.empty() ? default_probe_group(impl_->binary) : def.group;
    p.event = event_name(def, function);
    p.path = impl_->binary;
    p.address = site.addr;
    auto off = impl_->elf->vaddr_to_offset(site.addr);
    if (!off) throw_runtime("probe: address 0x{:x} of {} is in no loadable segment of {}", site.addr, function, p.path);
    p.offset = *off;
    p.function = function;
    p.point = point_text(def, site, function);
    p.arg_names = with_text(def);
    p.args = site_args(def, site, ctx);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<TraceProbe> ProbeFinder::find_in_symbols(const ProbeDefinition& def) const {
  SymbolTable table;
  table.add_elf(*impl_->elf, false);
  table.finalize();
  std::vector<TraceProbe> out;
  std::vector<std::string> names;
  std::set<uint64_t> seen;
  for (const auto& s : table.symbols()) {
    std::string name(s.name);
    names.push_back(name);
    if (fnmatch(def.function.c_str(), name.c_str(), 0) != 0 || !seen.insert(s.addr).second) continue;
    if (def.has_offset && def.offset >= s.size)
      throw_usage("probe: offset {} is past the end of {} ({} bytes)", def.offset, name, s.size);
    TraceProbe p;
    p.retprobe = def.retprobe;
    p.group = def.group.empty() ? default_probe_group(impl_->binary) : def.group;
    p.event = event_name(def, name);
    p.path = impl_->binary;
    p.address = s.addr + def.offset;
    auto off = impl_->elf->vaddr_to_offset(p.address);
    if (!off) continue;
    p.offset = *off;
    p.function = name;
    p.point = name;
    if (def.has_offset) p.point += fmt::format("+{}", def.offset);
    if (def.retprobe) p.point += "%return";
    for (const auto& a : def.args) p.args.push_back({a.name, a.var, a.type});
    out.push_back(std::move(p));
  }
  if (out.empty())
    throw_usage("probe: no function '{}' in {}'s symbols (nearest: {})", def.function, impl_->binary,
                nearest_names(def.function, names));
  return out;
}

}  // namespace sonde::probe
