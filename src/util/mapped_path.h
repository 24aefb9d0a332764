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

// A pseudo object, named in brackets by the kernel or perf ([kernel.kallsyms],
// [vdso], [anon:NAME], [heap], a module's [NAME]): one name everywhere, and
// no file to open by that name.
inline bool is_pseudo(MappedPath k) {
  return k == MappedPath::kKernel || k == MappedPath::kVdso || k == MappedPath::kAnonNamed || k == MappedPath::kPseudo;
}
inline bool is_pseudo_path(std::string_view path) { return is_pseudo(classify_mapped_path(path)); }

// A shared library or a pseudo object rather than a program: the base name
// has ".so" in it, is a pseudo object's, or is empty (pprof's main mapping
// and the store's program build-id skip these).
bool is_library_path(std::string_view path);

// Anonymous executable memory, whose code a JIT's perf map names.
inline bool is_anonymous_code(MappedPath k) {
  return k == MappedPath::kAnon || k == MappedPath::kAnonNamed || k == MappedPath::kMemfd;
}

}  // namespace sonde

#include <cstdint>
#include <string>

namespace sonde {

// A mapping's names, decided here for every output (report, script, diff,
// top and the exports), as perf 6.1 names its dsos:
//   file                 /usr/lib/libc.so.6            short: libc.so.6
//   deleted file         /tmp/x.so (deleted)           short: x.so (deleted)
//   memfd                /memfd:NAME (deleted)         short: memfd:NAME (deleted)
//   anonymous code       //anon, /dev/zero, /anon_hugepage (huge pages), [heap],
//                        [stack], /SYSV...  -> long: /tmp/perf-PID.map  short: [JIT] tid PID
//                        (map__new renames them; a perf map or jitdump still names
//                        the symbols, never the object)
//   perf map             /tmp/perf-PID.map             short: [JIT] tid PID
//   jitdump              jitted-PID-N.so as a file     short: jitted-PID-N.so
//   [vdso], [anon:NAME]  as they are
// Bad input keeps a readable name that never breaks a row: no name at all
// reads [unknown], control characters (newline, tab...) read '?'.
std::string mapping_long_name(std::string_view path, uint32_t pid);
// perf's dso__set_basename, from a long name.
std::string mapping_short_name(std::string_view long_name);
// What the exports print for a frame's object: the long name, but a perf
// map's short name ([JIT] tid PID), as report prints it.
std::string mapping_export_name(std::string_view long_name);
// Control characters (tab, newline, escape, DEL) become '?': a recorded name
// printed on a line keeps that line whole.
void replace_control_chars(std::string& text);

}  // namespace sonde
