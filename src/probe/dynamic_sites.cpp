#include "probe/dynamic_sites.h"

#include <fmt/format.h>

#include <unistd.h>

#include "probe/dwarf_probe_finder.h"
#include "probe/probe_definition.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {
namespace {

// perf's register names (%di) as the SDT language writes them (%rdi).
std::string sdt_register(const std::string& reg) {
  static const char* const kLegacy[] = {"%ax", "%bx", "%cx", "%dx", "%si", "%di", "%bp", "%sp"};
  for (const char* r : kLegacy)
    if (reg == r) return "%r" + reg.substr(1);
  if (reg.size() >= 3 && reg[1] == 'r' && reg[2] >= '0' && reg[2] <= '9') return reg;  // %r8..%r15
  return "";
}

// SIZE@OPERAND for one fetch; "" when the recipe cannot express it.
std::string sdt_operand(const TraceArg& a) {
  std::string type = a.type.empty() ? "u64" : a.type;
  if (type.size() < 2 || (type[0] != 'u' && type[0] != 's' && type[0] != 'x')) return "";
  int bits = std::atoi(type.c_str() + 1);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return "";
  std::string size = fmt::format("{}{}", type[0] == 's' ? "-" : "", bits / 8);
  if (a.fetch == "$retval") return size + "@%rax";  // the return value, at the return probe
  if (a.fetch.starts_with("%")) {
    std::string r = sdt_register(a.fetch);
    return r.empty() ? "" : size + "@" + r;
  }
  size_t open = a.fetch.find('(');
  if (open == std::string::npos || a.fetch.back() != ')' || a.fetch.find('(', open + 1) != std::string::npos) return "";
  std::string r = sdt_register(a.fetch.substr(open + 1, a.fetch.size() - open - 2));
  if (r.empty()) return "";
  std::string disp = a.fetch.substr(0, open);
  if (!disp.empty() && disp[0] == '+') disp.erase(0, 1);
  return size + "@" + disp + "(" + r + ")";
}

}  // namespace

bool is_dynamic_probe_spec(std::string_view event) {
  if (!event.starts_with("probe:")) return false;
  std::string_view rest = event.substr(6);
  size_t colon = rest.find(':');
  return colon != std::string_view::npos && access(std::string(rest.substr(0, colon)).c_str(), F_OK) == 0;
}

SdtSite to_sdt_site(const TraceProbe& p) {
  SdtSite s;
  s.retprobe = p.retprobe;
  s.provider = p.group;
  s.name = p.event;
  s.pc = p.address;
  s.pc_offset = p.offset;
  for (const auto& a : p.args) {
    std::string op = sdt_operand(a);
    if (op.empty())
      throw_usage("probe: {}={}{}: one-step recording reads a register or one memory word at a register; "
                  "use sonde probe, then record -e {}:{}",
                  a.name.empty() ? "arg" : a.name, a.fetch, a.type.empty() ? "" : ":" + a.type, p.group, p.event);
    s.args += (s.args.empty() ? "" : " ") + op;
  }
  s.parsed = parse_sdt_args(s.args, kMachineX86_64);
  return s;
}

DynamicProbes resolve_dynamic_probes(const std::vector<std::string>& events, const std::string& cache_root) {
  DynamicProbes out;
  for (const auto& e : events) {
    if (!is_dynamic_probe_spec(e)) {
      out.events.push_back(e);
      continue;
    }
    std::string rest = e.substr(6);
    size_t colon = rest.find(':');
    ProbeFinder finder(rest.substr(0, colon), cache_root);
    auto probes = finder.find(parse_probe_definition(rest.substr(colon + 1)));
    for (const auto& p : probes) {
      out.sites_by_path[p.path].push_back(to_sdt_site(p));
      std::string spec = "%" + p.group + ":" + p.event + "@" + p.path;
      if (out.events.empty() || out.events.back() != spec) out.events.push_back(spec);
    }
  }
  return out;
}

}  // namespace sonde::probe
