#include "symbol/symbol_sources.h"

#include "jit/jit_files.h"

namespace sonde {

SourceKind classify_source(std::string_view path) {
  if (path.starts_with("[kernel.kallsyms]") || path == "[kernel]") return SourceKind::kKernel;
  // Anonymous executable memory is JIT code: its names are in the pid's perf map.
  if (path.starts_with("//anon") || path.starts_with("[anon") || path.starts_with("/memfd:") ||
      (path.starts_with("/tmp/perf-") && path.ends_with(".map")))
    return SourceKind::kPerfMap;
  if (path.starts_with("[")) return SourceKind::kPseudo;
  if (jit::jitdump_pid(path)) return SourceKind::kJitDump;
  return SourceKind::kElf;
}

}  // namespace sonde
