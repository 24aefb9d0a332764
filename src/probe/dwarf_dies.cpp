#include "probe/dwarf_dies.h"

namespace sonde::probe::dwarf {

std::string die_name(Dwarf_Die* die) {
  const char* n = dwarf_diename(die);
  return n ? n : "";
}

bool direct_type(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute attr;
  if (!dwarf_attr_integrate(die, DW_AT_type, &attr)) return false;
  return dwarf_formref_die(&attr, out) != nullptr;
}

bool real_type(Dwarf_Die* die, Dwarf_Die* out) {
  if (!direct_type(die, out)) return false;
  for (int depth = 0; depth < 32; ++depth) {
    int tag = dwarf_tag(out);
    if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
        tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
      return true;
    Dwarf_Die next;
    if (!direct_type(out, &next)) return false;  // const void
    *out = next;
  }
  return false;
}

std::string type_name(Dwarf_Die* var) {
  Dwarf_Die t;
  std::string suffix;
  if (!direct_type(var, &t)) return "void";
  for (int depth = 0; depth < 16; ++depth) {
    int tag = dwarf_tag(&t);
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type) {
      suffix += "*";  // perf names arrays as pointers
    } else if (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type) {
      // perf names the underlying type
    } else {
      std::string prefix = tag == DW_TAG_structure_type ? "struct "
                           : tag == DW_TAG_union_type  ? "union "
                           : tag == DW_TAG_enumeration_type ? "enum "
                                                            : "";
      return prefix + die_name(&t) + suffix;
    }
    Dwarf_Die next;
    if (!direct_type(&t, &next)) return "void" + suffix;
    t = next;
  }
  return "?";
}

bool is_signed_type(Dwarf_Die* type) {
  Dwarf_Attribute attr;
  Dwarf_Word enc = 0;
  if (!dwarf_attr(type, DW_AT_encoding, &attr) || dwarf_formudata(&attr, &enc) != 0) return false;
  return enc == DW_ATE_signed || enc == DW_ATE_signed_char || enc == DW_ATE_signed_fixed;
}

bool is_function_instance(Dwarf_Die* die) {
  if (dwarf_tag(die) != DW_TAG_subprogram || dwarf_hasattr(die, DW_AT_declaration)) return false;
  Dwarf_Addr pc = 0;
  return dwarf_entrypc(die, &pc) == 0;
}

bool cu_is_optimized(Dwarf_Die* cu) {
  Dwarf_Attribute attr;
  const char* producer = dwarf_attr(cu, DW_AT_producer, &attr) ? dwarf_formstring(&attr) : nullptr;
  if (!producer) return false;
  std::string p = producer;
  size_t at = p.rfind(" -O");
  if (at == std::string::npos) return false;
  return at + 3 >= p.size() || p[at + 3] != '0';
}

namespace {

bool is_variable_tag(int tag) { return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable; }

bool is_scope_tag(int tag) { return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine; }

// Depth-first over children; descends into nested scopes that hold addr.
bool walk_children(Dwarf_Die* scope, Dwarf_Addr addr, const std::function<bool(Dwarf_Die*)>& fn) {
  Dwarf_Die child;
  if (dwarf_child(scope, &child) != 0) return false;
  do {
    int tag = dwarf_tag(&child);
    if (is_variable_tag(tag) && fn(&child)) return true;
    if (is_scope_tag(tag) && tag != DW_TAG_inlined_subroutine && dwarf_haspc(&child, addr) == 1 &&
        walk_children(&child, addr, fn))
      return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

}  // namespace

bool find_variable(Dwarf_Die* scope, Dwarf_Die* cu, const std::string& name, Dwarf_Addr addr, Dwarf_Die* out) {
  auto match = [&](Dwarf_Die* d) {
    if (die_name(d) != name) return false;
    *out = *d;
    return true;
  };
  if (walk_children(scope, addr, match)) return true;
  Dwarf_Die child;
  if (dwarf_child(cu, &child) != 0) return false;
  do {
    if (dwarf_tag(&child) == DW_TAG_variable && match(&child)) return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

void for_each_variable(Dwarf_Die* scope, Dwarf_Addr addr, bool vars, const std::function<void(Dwarf_Die*)>& fn) {
  walk_children(scope, addr, [&](Dwarf_Die* d) {
    if (dwarf_tag(d) == DW_TAG_formal_parameter || vars) fn(d);
    return false;
  });
}

void for_each_statement_row(Dwarf_Die* cu, const std::function<void(Dwarf_Addr, int, const char*)>& fn) {
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (dwarf_getsrclines(cu, &lines, &n) != 0) return;
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    int line = 0;
    bool stmt = false, end = false;
    Dwarf_Addr a = 0;
    const char* f = dwarf_linesrc(l, nullptr, nullptr);
    if (dwarf_lineno(l, &line) != 0 || dwarf_linebeginstatement(l, &stmt) != 0 || !stmt ||
        dwarf_lineendsequence(l, &end) != 0 || end || dwarf_lineaddr(l, &a) != 0 || !f)
      continue;
    fn(a, line, f);
  }
}

std::string x86_register(unsigned regno) {
  static const char* const kNames[] = {"%ax", "%dx", "%cx", "%bx", "%si",  "%di",  "%bp",  "%sp", "%r8",
                                       "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%ip"};
  return regno < std::size(kNames) ? kNames[regno] : "";
}

bool path_tail_matches(const std::string& file, const std::string& suffix) {
  if (suffix.empty() || file == suffix) return true;
  if (file.size() <= suffix.size() || !file.ends_with(suffix)) return false;
  return file[file.size() - suffix.size() - 1] == '/' || suffix[0] == '/';
}

}  // namespace sonde::probe::dwarf
