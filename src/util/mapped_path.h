// What a mapping's path names, read once by one function: every reader of
// MMAP/MMAP2 paths and /proc/PID/maps lines (the symbolizer's source
// choice, the recorder's build-ids and cache keeper, the JIT files'
// keeper, script's frame addresses) asks classify_mapped_path and decides
// from the kind, instead of testing prefixes of its own.
#pragma once

#include <string_view>

namespace sonde {

enum class MappedPath {
  kNone,           // ""
  kKernel,         // [kernel.kallsyms]..., [kernel]
  kVdso,           // [vdso]
  kAnonNamed,      // [anon:NAME] (prctl PR_SET_VMA_ANON_NAME)
  kPseudo,         // any other [...]: [heap], [stack], [vsyscall], [uprobes]
  kAnon,           // //anon: anonymous executable memory (JIT code)
  kMemfd,          // /memfd:NAME (deleted)
  kPerfTemp,       // /tmp/perf-...: perf maps (/tmp/perf-PID.map) and perf's own temporary files
  kDevice,         // /dev/...
  kSysV,           // /SYSV...: System V shared memory
  kAnonHugepage,   // /anon_hugepage
  kFile,           // any other absolute path: a file
  kRelative,       // anything else
};

MappedPath classify_mapped_path(std::string_view path);

// Anonymous executable memory, whose code a JIT's perf map names.
inline bool is_anonymous_code(MappedPath k) {
  return k == MappedPath::kAnon || k == MappedPath::kAnonNamed || k == MappedPath::kMemfd;
}

}  // namespace sonde
