#include "symbol/symbol_sources.h"

#include "jit/jit_files.h"
#include "util/mapped_path.h"

namespace sonde {

SourceKind classify_source(std::string_view path) {
  const MappedPath kind = classify_mapped_path(path);
  if (kind == MappedPath::kKernel) return SourceKind::kKernel;
  // Anonymous executable memory is JIT code: its names are in the pid's perf map.
  if (is_anonymous_code(kind) || (kind == MappedPath::kPerfTemp && path.ends_with(".map"))) return SourceKind::kPerfMap;
  if (kind == MappedPath::kVdso || kind == MappedPath::kPseudo) return SourceKind::kPseudo;
  if (jit::jitdump_pid(path)) return SourceKind::kJitDump;
  return SourceKind::kElf;
}

}  // namespace sonde
