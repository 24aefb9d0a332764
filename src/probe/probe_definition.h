// A `perf probe` definition, parsed: where (a function, a line, an offset,
// a return) and which arguments, in perf's syntax (perf-probe.txt):
//
//   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return|;PTN] [ARG...]
//   [[GROUP:]EVENT=]SRC:ALN|SRC;PTN [ARG...]
//   ARG: [NAME=]VAR[->field|.field|[N]]...[:TYPE] | $params | $vars | $retval | %REG | @SYM | +OFF(%REG)...
//
// Parsing does not look at the binary: dwarf_probe_finder resolves names.
// Bad syntax is a usage error (sonde::Error, exit 2) naming the word.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::probe {

// One step after a variable: `->name`, `.name` or `[index]`.
struct ArgField {
  std::string name;    // empty for an index
  bool deref = false;  // `->` (the value is a pointer to a struct)
  bool is_index = false;
  int64_t index = 0;
};

struct ProbeArgSpec {
  std::string name;  // NAME= as given, "" when not given
  std::string var;   // C variable, or the raw text ($retval, %di, +8(%di), @sym, $params, $vars)
  std::vector<ArgField> fields;
  std::string type;  // u8..s64, x8..x64, u/s/x, string, bN@O/S; "" = from DWARF
  bool raw() const;  // not a C variable: copied into the definition as written
  std::string text() const;  // as the user wrote it (perf's "with ..." lists)
};

struct ProbeDefinition {
  std::string group;     // GROUP: given, else ""
  std::string event;     // EVENT= given, else ""
  std::string function;  // may be a glob
  std::string file;      // @SRC or SRC (a path suffix)
  int line = 0;          // function-relative (FUNC:RLN) or absolute (SRC:ALN)
  bool absolute_line = false;
  uint64_t offset = 0;  // +OFF
  bool has_offset = false;
  bool retprobe = false;
  std::string lazy;  // ;PTN: a lazy line pattern (perf's: a glob ignoring spaces)
  std::vector<ProbeArgSpec> args;
  std::string text;  // the definition as given (one line, single spaces)

  bool has_c_args() const;
  // perf's point text: FUNC[:RLN|+OFF|%return][@SRC] or SRC:LINE.
  std::string point_text() const;
};

// Parses one definition (the words of the command line joined by spaces).
ProbeDefinition parse_probe_definition(const std::string& text);
// Checks a TYPE (perf's fetch types); throws a usage error otherwise.
void check_probe_type(const std::string& type, const std::string& arg);

}  // namespace sonde::probe
