// Resolves `perf probe` definitions in a binary's DWARF (elfutils libdw):
// functions (also inlined instances and globs), function-relative and
// absolute source lines, offsets and returns become addresses, and
// arguments become uprobe fetch expressions from their DWARF locations
// (registers, DW_OP_fbreg through the frame base or the CFA, struct members,
// pointer chains, array elements, strings), as perf 6.1's probe-finder does.
// Without DWARF, function entries are found in the symbol table (no
// arguments, as perf does for stripped binaries).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probe/line_range.h"
#include "probe/probe_definition.h"
#include "probe/trace_probe.h"

namespace sonde::probe {

class ProbeFinder {
 public:
  // Opens `binary` and finds its debug info: the binary itself, then
  // /usr/lib/debug/.build-id/XX/REST.debug, then perf's build-id cache
  // (CACHE_ROOT/.build-id/XX/REST/debug), then .gnu_debuglink beside it and
  // in /usr/lib/debug. Throws a runtime error when the binary is unreadable.
  ProbeFinder(const std::string& binary, const std::string& cache_root);
  ~ProbeFinder();
  ProbeFinder(const ProbeFinder&) = delete;
  ProbeFinder& operator=(const ProbeFinder&) = delete;

  const std::string& binary() const;  // the real path
  bool has_dwarf() const;
  // Where debug info was looked for, for messages ("A, B, C").
  std::string looked_in() const;

  // Every site of `def`, named as perf names them (group and event not yet
  // made unique). Throws a usage error for a name, line or variable that is
  // not there (with the nearest names), a runtime error for a variable
  // without a location at the probe (optimized out).
  std::vector<TraceProbe> find(const ProbeDefinition& def) const;

  // -F: function names (the symbol table's, as perf lists them), filtered
  // by a glob ("" = every name not starting with '_').
  std::vector<std::string> functions(const std::string& filter) const;
  // -V: perf's "Available variables at ..." text for each site of `def`;
  // `externs`: with the variables of the site's compilation unit.
  std::string variables(const ProbeDefinition& def, bool externs = false) const;
  // -L: a function's source lines (numbered from its declaration line) or a
  // source file's, the probeable ones numbered (perf's layout).
  std::string lines(const LineRange& range) const;
  // perf -l's point for a uprobe at a file offset: FUNC, FUNC:RLN@SRC,
  // FUNC%return@SRC, or FUNC+OFF from the symbols without DWARF.
  std::string describe(uint64_t file_offset, bool retprobe) const;

  struct Impl;

 private:
  std::vector<TraceProbe> find_in_symbols(const ProbeDefinition& def) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sonde::probe
