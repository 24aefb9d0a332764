#include "probe/dynamic_sites.h"

#include <fmt/format.h>

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <optional>

#include "probe/dwarf_probe_finder.h"
#include "probe/probe_definition.h"
#include "probe/sdt_abi.h"
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

// A perf fetch argument (`%di`, `-24(%bp)`, `+8(+0(-24(%bp)))`, `$retval`):
// its register and its offsets, innermost first (one memory read each).
struct Fetch {
  std::string reg;  // "" for a static variable (@NAME+OFF): offsets[0] is then its OFF
  std::vector<int64_t> offsets;
};

bool parse_offset(std::string_view num, int64_t& out) {
  if (num.starts_with("+")) num.remove_prefix(1);
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), out);
  return ec == std::errc() && end == num.data() + num.size();
}

std::optional<Fetch> parse_fetch(std::string_view f) {
  Fetch out;
  while (!f.empty() && (f[0] == '+' || f[0] == '-' || (f[0] >= '0' && f[0] <= '9'))) {
    size_t open = f.find('(');
    if (open == std::string_view::npos || f.back() != ')') return std::nullopt;
    int64_t off = 0;
    if (!parse_offset(f.substr(0, open), off)) return std::nullopt;
    out.offsets.insert(out.offsets.begin(), off);
    f = f.substr(open + 1, f.size() - open - 2);
  }
  if (f.starts_with("@")) {  // @NAME+OFF: the memory at a static variable
    size_t sign = f.find_first_of("+-");
    int64_t off = 0;
    if (sign == std::string_view::npos || !parse_offset(f.substr(sign), off)) return std::nullopt;
    out.offsets.insert(out.offsets.begin(), off);
    return out;
  }
  out.reg = f == "$retval" ? "%rax" : sdt_register(std::string(f));  // the return value, at the return probe
  if (out.reg.empty()) return std::nullopt;
  return out;
}

// One fetch as an SDT argument: the SDT operand for the register or the
// first memory read, then the pointer reads and the string flag the
// language has no words for. nullopt when the BPF recipe cannot express it.
std::optional<SdtArg> sdt_argument(const TraceArg& a, bool retprobe) {
  const std::string type = a.type.empty() ? "u64" : a.type;
  const bool is_string = type == "string";
  int bits = is_string ? 64 : std::atoi(type.c_str() + 1);
  if (!is_string && (type.size() < 2 || (type[0] != 'u' && type[0] != 's' && type[0] != 'x'))) return std::nullopt;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
  auto fetch = parse_fetch(a.fetch);
  if (!fetch || fetch->offsets.size() > 1 + SONDE_SDT_MAX_DEREFS || (is_string && fetch->offsets.empty()))
    return std::nullopt;
  std::string text = fmt::format("{}{}@", !is_string && type[0] == 's' ? "-" : "", bits / 8);
  SdtArg out;
  if (fetch->reg.empty()) {
    // A static variable: read relative to the probe's ip (the SDT extension
    // keeps the link-time distance), so PIE and shared objects work.
    // @SYM written by hand has no address known; at a return probe the ip
    // is the caller's.
    if (a.symbol_address == 0 || retprobe) return std::nullopt;
    ParsedArgs parsed = parse_sdt_args(text + "%rax", kMachineX86_64);  // the size and sign
    if (!parsed.ok() || parsed.args.size() != 1) return std::nullopt;
    out = parsed.args[0];
    out.kind = ArgKind::RipMem;
    out.base = kNoReg;
    out.disp = static_cast<int64_t>(a.symbol_address) + fetch->offsets[0];
  } else {
    if (fetch->offsets.empty()) text += fetch->reg;
    else text += fmt::format("{}({})", fetch->offsets[0], fetch->reg);
    ParsedArgs parsed = parse_sdt_args(text, kMachineX86_64);
    if (!parsed.ok() || parsed.args.size() != 1) return std::nullopt;
    out = parsed.args[0];
  }
  for (size_t i = 1; i < fetch->offsets.size(); ++i) {
    if (fetch->offsets[i] < INT32_MIN || fetch->offsets[i] > INT32_MAX) return std::nullopt;
    out.derefs.push_back(static_cast<int32_t>(fetch->offsets[i]));
  }
  out.is_string = is_string;
  out.text = a.fetch + ":" + type;
  return out;
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
    std::optional<SdtArg> arg = sdt_argument(a, p.retprobe);
    if (!arg)
      throw_usage("probe: {}={}{}: one-step recording reads a register, memory through up to {} pointers or a "
                  "string, as integers of 1-8 bytes; use sonde probe, then record -e {}:{}",
                  a.name.empty() ? "arg" : a.name, a.fetch, a.type.empty() ? "" : ":" + a.type,
                  1 + SONDE_SDT_MAX_DEREFS, p.group, p.event);
    s.args += (s.args.empty() ? "" : " ") + arg->text;
    s.parsed.args.push_back(std::move(*arg));
  }
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
