#include "util/mapped_path.h"

namespace sonde {

MappedPath classify_mapped_path(std::string_view p) {
  if (p.empty()) return MappedPath::kNone;
  if (p.front() == '[') {
    if (p.starts_with("[kernel.kallsyms]") || p == "[kernel]") return MappedPath::kKernel;
    if (p == "[vdso]") return MappedPath::kVdso;
    if (p.starts_with("[anon")) return MappedPath::kAnonNamed;
    return MappedPath::kPseudo;
  }
  if (p.front() != '/') return MappedPath::kRelative;
  if (p.starts_with("//anon")) return MappedPath::kAnon;
  if (p.starts_with("/memfd:")) return MappedPath::kMemfd;
  if (p.starts_with("/tmp/perf-")) return MappedPath::kPerfTemp;
  if (p.starts_with("/dev/")) return MappedPath::kDevice;
  if (p.starts_with("/SYSV")) return MappedPath::kSysV;
  if (p.starts_with("/anon_hugepage")) return MappedPath::kAnonHugepage;
  return MappedPath::kFile;
}

}  // namespace sonde
