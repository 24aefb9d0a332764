// perf's lazy line patterns (`FUNC;PTN`, `SRC;PTN`): the source lines that
// match PTN as a glob ignoring spaces, and every address perf's
// die_walk_lines gives such a line: statement rows (of the function, not of
// code inlined into it unless at its call line), the function's declaration
// line at its entry, and inlined calls at their call line.
#include <fstream>
#include <set>

#include "probe/dwarf_dies.h"
#include "probe/dwarf_probe_finder_impl.h"
#include "util/error.h"

namespace sonde::probe {
namespace {

bool lazy_class(const char*& s, const char*& p) {  // p at '[': [abc], [a-z], [!...]
  const char* q = p + 1;
  bool negate = *q == '!', hit = false;
  if (negate) ++q;
  for (; *q && *q != ']'; ++q) {
    if (q[1] == '-' && q[2] && q[2] != ']') hit |= *s >= q[0] && *s <= q[2], q += 2;
    else hit |= *s == *q;
  }
  if (*q != ']' || hit == negate) return false;
  p = q + 1, ++s;
  return true;
}

// perf's strlazymatch (__match_glob with spaces ignored on both sides).
bool lazy_match(const char* s, const char* p) {
  while (*s && *p && *p != '*') {
    if (*s == ' ' || *s == '\t') { ++s; continue; }
    if (*p == ' ' || *p == '\t') { ++p; continue; }
    if (*p == '?') { ++s, ++p; continue; }
    if (*p == '[') {
      if (!lazy_class(s, p)) return false;
      continue;
    }
    if (*p == '\\') ++p;
    if (*s++ != *p++) return false;
  }
  if (*p == '*') {
    while (*p == '*') ++p;
    if (!*p) return true;
    while (*s)
      if (lazy_match(s++, p)) return true;
  }
  return !*s && !*p;
}

std::set<int> matching_lines(const std::string& path, const std::string& pattern) {
  std::ifstream in(path);
  if (!in) throw_runtime("probe: cannot read the source {} to match '{}'", path, pattern);
  std::set<int> out;
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (++n, lazy_match(line.c_str(), pattern.c_str())) out.insert(n);
  return out;
}

struct LazyWalk {
  Dwarf_Die* cu;
  std::string file;  // the matched source (full path)
  std::set<int> lines;
  std::vector<Dwarf_Addr> addrs;
  void add(const char* f, int line, Dwarf_Addr a) {
    if (f && lines.count(line) && dwarf::path_tail_matches(f, file) &&
        std::find(addrs.begin(), addrs.end(), a) == addrs.end())
      addrs.push_back(a);
  }
};

// The innermost inlined copy below `root` holding addr, if any.
bool inlined_below(Dwarf_Die* cu, Dwarf_Die* root, Dwarf_Addr a, Dwarf_Die* out) {
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, a, &scopes);
  bool found = false;
  for (int i = 0; i < n && scopes[i].addr != root->addr; ++i)  // the same DIE: the same bytes
    if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
      *out = scopes[i], found = true;
      break;
    }
  free(scopes);
  return found;
}

int call_line(Dwarf_Die* inl) {
  Dwarf_Attribute attr;
  Dwarf_Word v = 0;
  return dwarf_attr(inl, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0 ? static_cast<int>(v) : 0;
}

// __die_walk_funclines: the declaration line at the entry, then inlined
// calls at their call line (and, recursively, their own declaration line).
void walk_funclines(LazyWalk& w, Dwarf_Die* fn, bool recursive) {
  Dwarf_Addr entry = 0;
  int decl = 0;
  if (dwarf_decl_line(fn, &decl) == 0 && dwarf_entrypc(fn, &entry) == 0) w.add(dwarf_decl_file(fn), decl, entry);
  std::function<void(Dwarf_Die*)> children = [&](Dwarf_Die* parent) {
    Dwarf_Die c;
    if (dwarf_child(parent, &c) != 0) return;
    do {
      if (dwarf_tag(&c) == DW_TAG_inlined_subroutine) {
        Dwarf_Addr a = 0;
        if (dwarf_entrypc(&c, &a) == 0) w.add(w.file.c_str(), call_line(&c), a);
        if (recursive) walk_funclines(w, &c, true);
      } else {
        children(&c);  // lexical blocks
      }
    } while (dwarf_siblingof(&c, &c) == 0);
  };
  children(fn);
}

}  // namespace

std::vector<Dwarf_Addr> lazy_line_addresses(Dwarf_Die* cu, Dwarf_Die* scope, const std::string& file,
                                            const std::string& pattern) {
  LazyWalk w{cu, file, {}, {}};
  bool found_file = false;
  dwarf::for_each_statement_row(cu, [&](Dwarf_Addr, int, const char* f) {
    if (!found_file && dwarf::path_tail_matches(f, file)) w.file = f, found_file = true;
  });
  if (!found_file) return {};
  w.lines = matching_lines(w.file, pattern);
  int decl = 0;
  if (scope) dwarf_decl_line(scope, &decl);
  dwarf::for_each_statement_row(cu, [&](Dwarf_Addr a, int line, const char* f) {
    Dwarf_Die inl;
    if (scope && dwarf_haspc(scope, a) != 1) return;
    if (scope && inlined_below(cu, scope, a, &inl) && call_line(&inl) != line) {
      int inl_decl = 0;  // rows of code inlined here count only for a recursive call of the same function
      if (dwarf_decl_line(&inl, &inl_decl) != 0 || inl_decl != decl) return;
    }
    w.add(f, line, a);
  });
  if (scope) {
    walk_funclines(w, scope, false);
  } else {
    Dwarf_Die c;
    if (dwarf_child(cu, &c) == 0) do {
        if (dwarf::is_function_instance(&c)) walk_funclines(w, &c, true);
      } while (dwarf_siblingof(&c, &c) == 0);
  }
  return w.addrs;
}

}  // namespace sonde::probe
