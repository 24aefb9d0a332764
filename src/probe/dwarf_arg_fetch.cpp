#include "probe/dwarf_arg_fetch.h"

#include <fmt/format.h>

#include <vector>

#include "probe/dwarf_dies.h"
#include "util/error.h"

namespace sonde::probe {
namespace {

// A location: a register, plus a chain of dereferences with offsets
// (innermost first), as perf's probe_trace_arg_ref list.
// A static variable is `@NAME` with its first dereference written `@NAME+OFF`
// (perf's synthesize_probe_trace_arg): the memory at the symbol.
struct Fetch {
  std::string reg;
  std::vector<int64_t> refs;
  uint64_t symbol_address = 0;  // reg is @NAME: the variable's link-time address
  std::string text() const {
    std::string s = reg;
    size_t first = 0;
    if (reg.starts_with("@") && !refs.empty()) s = fmt::format("{}{:+d}", reg, refs[first++]);
    for (size_t i = first; i < refs.size(); ++i) s = fmt::format("{:+d}({})", refs[i], s);
    return s;
  }
};

enum class LocResult { Ok, Missing, Unsupported };

// The first location expression valid at addr; parameters at the function's
// entry may start a few bytes later (perf's search forward).
bool location_ops(Dwarf_Die* var, const FetchContext& ctx, Dwarf_Op** ops, size_t* nops) {
  Dwarf_Attribute attr;
  if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) return false;
  if (dwarf_getlocation_addr(&attr, ctx.addr, ops, nops, 1) > 0) return *nops > 0;
  Dwarf_Addr entry = 0, high = 0;
  if (dwarf_tag(var) != DW_TAG_formal_parameter || dwarf_entrypc(ctx.function, &entry) != 0 || entry != ctx.addr ||
      dwarf_highpc(ctx.function, &high) != 0)
    return false;
  for (Dwarf_Addr a = ctx.addr + 1; a < high; ++a)
    if (dwarf_getlocation_addr(&attr, a, ops, nops, 1) > 0) return *nops > 0;
  return false;
}

LocResult convert_location(Dwarf_Die* var, const FetchContext& ctx, Fetch* out) {
  Dwarf_Op* op = nullptr;
  size_t nops = 0;
  if (!location_ops(var, ctx, &op, &nops)) return LocResult::Missing;
  bool ref = false;
  int64_t offs = 0;
  if (op->atom == DW_OP_addr) {  // a static or global variable, at a fixed address
    if (out) {
      out->reg = fmt::format("@{}", dwarf::die_name(var));  // not "@" + s: gcc 12 -O3 -Wrestrict
      out->refs.push_back(0);
      out->symbol_address = op->number;
    }
    return LocResult::Ok;
  }
  if (op->atom == DW_OP_fbreg) {
    if (!ctx.frame_base) return LocResult::Unsupported;
    ref = true;
    offs = static_cast<int64_t>(op->number);
    op = &ctx.frame_base[0];
  }
  unsigned regno = 0;
  if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
    regno = op->atom - DW_OP_breg0, offs += static_cast<int64_t>(op->number), ref = true;
  } else if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
    regno = op->atom - DW_OP_reg0;
  } else if (op->atom == DW_OP_bregx) {
    regno = static_cast<unsigned>(op->number), offs += static_cast<int64_t>(op->number2), ref = true;
  } else if (op->atom == DW_OP_regx) {
    regno = static_cast<unsigned>(op->number);
  } else {
    return LocResult::Unsupported;
  }
  if (out) {
    out->reg = dwarf::x86_register(regno);
    if (out->reg.empty()) return LocResult::Unsupported;
    if (ref) out->refs.push_back(offs);
  }
  return LocResult::Ok;
}

int64_t member_offset(Dwarf_Die* member) {
  Dwarf_Attribute attr;
  Dwarf_Word off = 0;
  if (!dwarf_attr(member, DW_AT_data_member_location, &attr)) return 0;  // a union member
  if (dwarf_formudata(&attr, &off) != 0) throw_runtime("probe: unsupported member location of '{}'", dwarf::die_name(member));
  return static_cast<int64_t>(off);
}

bool find_member(Dwarf_Die* type, const std::string& name, Dwarf_Die* out) {
  Dwarf_Die child;
  if (dwarf_child(type, &child) != 0) return false;
  do {
    if (dwarf_tag(&child) == DW_TAG_member && dwarf::die_name(&child) == name) return *out = child, true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

std::string member_names(Dwarf_Die* type) {
  std::string s;
  Dwarf_Die child;
  if (dwarf_child(type, &child) != 0) return s;
  do {
    if (dwarf_tag(&child) == DW_TAG_member) s += (s.empty() ? "" : ", ") + dwarf::die_name(&child);
  } while (dwarf_siblingof(&child, &child) == 0);
  return s;
}

// An index into an array or through a pointer: perf's convert_variable_fields.
void apply_index(Dwarf_Die* cur, const ArgField& f, Fetch& fetch, const std::string& arg) {
  Dwarf_Die type, elem;
  if (!dwarf::real_type(cur, &type)) throw_usage("probe: no type for '{}'", arg);
  int tag = dwarf_tag(&type);
  if (tag != DW_TAG_array_type && tag != DW_TAG_pointer_type)
    throw_usage("probe: '{}': {} is not a pointer nor an array", arg, dwarf::die_name(cur));
  if (!dwarf::real_type(&type, &elem)) throw_usage("probe: '{}': no element type", arg);
  int64_t size = dwarf_bytesize(&elem);
  if (tag == DW_TAG_pointer_type) fetch.refs.push_back(0);
  if (fetch.refs.empty()) throw_runtime("probe: '{}': an array held in a register is not supported", arg);
  fetch.refs.back() += size * f.index;
  *cur = type;  // the element's type follows: keep the array/pointer so real_type gives the element
}

// A member access: `->name` through a pointer, `.name` in place.
void apply_member(Dwarf_Die* cur, const ArgField& f, Fetch& fetch, const std::string& arg, const std::string& owner) {
  Dwarf_Die type;
  if (!dwarf::real_type(cur, &type)) throw_usage("probe: no type for '{}' in '{}'", owner, arg);
  if (dwarf_tag(&type) == DW_TAG_pointer_type) {
    if (!f.deref) throw_usage("probe: '{}': {} is a pointer, use '->{}'", arg, owner, f.name);
    Dwarf_Die pointee;
    if (!dwarf::real_type(&type, &pointee)) throw_usage("probe: '{}': {} points to void", arg, owner);
    type = pointee;
    fetch.refs.push_back(0);
  } else if (f.deref) {
    throw_usage("probe: '{}': {} is not a pointer, use '.{}'", arg, owner, f.name);
  } else if (fetch.refs.empty()) {
    throw_runtime("probe: '{}': a structure held in a register is not supported", arg);
  }
  int tag = dwarf_tag(&type);
  if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
    throw_usage("probe: '{}': {} is not a structure nor a union", arg, owner);
  Dwarf_Die member;
  if (!find_member(&type, f.name, &member))
    throw_usage("probe: '{}': {} (type {}) has no member '{}' (members: {})", arg, owner, dwarf::die_name(&type),
                f.name, member_names(&type));
  fetch.refs.back() += member_offset(&member);
  *cur = member;
}

// perf's convert_variable_type.
std::string variable_type(Dwarf_Die* var, const std::string& cast, Fetch& fetch, const std::string& arg) {
  if (!cast.empty() && cast != "string" && cast != "u" && cast != "s" && cast != "x") return cast;
  int bits = dwarf_bitsize(var);
  if (bits > 0) {
    int boffs = dwarf_bitoffset(var), total = dwarf_bytesize(var);
    if (boffs < 0 || total < 0) throw_runtime("probe: '{}': unsupported bitfield", arg);
    return fmt::format("b{}@{}/{}", bits, boffs, total * 8);
  }
  Dwarf_Die type;
  if (!dwarf::real_type(var, &type)) throw_usage("probe: '{}': no type information", arg);
  if (cast == "string") {
    int tag = dwarf_tag(&type);
    Dwarf_Die elem;
    if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) || !dwarf::real_type(&type, &elem))
      throw_usage("probe: '{}': {} is not a pointer nor an array, it cannot be a string", arg, dwarf::type_name(var));
    std::string en = dwarf::die_name(&elem);
    if (en != "char" && en != "unsigned char") throw_usage("probe: '{}': {} is not (unsigned) char *", arg, dwarf::type_name(var));
    if (tag == DW_TAG_pointer_type) fetch.refs.push_back(0);
    return "string";
  }
  int size = dwarf_bytesize(&type);
  if (size <= 0) return "";
  int width = std::min(size * 8, 64);
  char prefix = !cast.empty() ? cast[0] : dwarf::is_signed_type(&type) ? 's' : 'x';
  return fmt::format("{}{}", prefix, width);
}

}  // namespace

bool has_static_location(Dwarf_Die* var, const FetchContext& ctx) {
  Dwarf_Op* op = nullptr;
  size_t nops = 0;
  return location_ops(var, ctx, &op, &nops) && op->atom == DW_OP_addr;
}

bool has_fetchable_location(Dwarf_Die* var, const FetchContext& ctx) {
  if (dwarf_hasattr(var, DW_AT_external) && dwarf_tag(var) == DW_TAG_variable) return false;
  return convert_location(var, ctx, nullptr) == LocResult::Ok;
}

TraceArg fetch_variable(Dwarf_Die* var, const ProbeArgSpec& spec, const FetchContext& ctx) {
  Fetch fetch;
  std::string arg = spec.text();
  switch (convert_location(var, ctx, &fetch)) {
    case LocResult::Ok: break;
    case LocResult::Missing:
      throw_runtime("probe: '{}' has no location at {} (optimized out there; sonde probe -V lists what is)", spec.var,
                    ctx.where);
    case LocResult::Unsupported:
      throw_runtime("probe: the location of '{}' at {} is not supported yet", spec.var, ctx.where);
  }
  Dwarf_Die cur = *var;
  std::string owner = spec.var;
  for (const auto& f : spec.fields) {
    if (f.is_index) {
      apply_index(&cur, f, fetch, arg);
      // The element: a DIE whose DW_AT_type is the element type is needed;
      // the array/pointer type DIE has exactly that.
    } else {
      apply_member(&cur, f, fetch, arg, owner);
      owner = f.name;
    }
  }
  TraceArg out;
  out.name = spec.name.empty() ? default_arg_name(spec) : spec.name;
  out.type = variable_type(&cur, spec.type, fetch, arg);
  out.fetch = fetch.text();
  out.symbol_address = fetch.symbol_address;
  return out;
}

std::string default_arg_name(const ProbeArgSpec& spec) {
  if (!spec.fields.empty()) {
    for (auto it = spec.fields.rbegin(); it != spec.fields.rend(); ++it)
      if (!it->is_index) return it->name;
    return spec.var;
  }
  return spec.type.empty() ? spec.var : spec.var + "_" + spec.type;
}

}  // namespace sonde::probe
