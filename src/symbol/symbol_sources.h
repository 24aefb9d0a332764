// The symbol sources behind Symbolizer::object(), one file each. A mapping
// is first classified by its path (classify_source, the only place that
// looks at path prefixes), then loaded by its source:
//
//   kind      file                  symbols from
//   kElf      elf_source.cpp        the object's files (object_locator.h: cache, path, debug files, debuginfod)
//   kPseudo   pseudo_source.cpp     [vdso] and other "[...]" images (cached copy, running vdso, debug vdso)
//   kKernel   kernel_source.cpp     kallsyms: the cache's copy (and sonde's index of it) or /proc/kallsyms
//   kPerfMap  perf_map_source.cpp   /tmp/perf-PID.map (JIT code in anonymous memory)
//   kJitDump  jitdump_source.cpp    jit-PID.dump (the mappings analysis/jit_timeline.h adds per code load)
//
// A new source is a new kind here, a case in classify_source, its file, and
// a case in Symbolizer::object.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbol/loaded_object.h"
#include "symbol/note_list.h"
#include "symbol/object_locator.h"

namespace sonde {

class BuildIdCache;

enum class SourceKind : uint8_t {
  kElf,      // a file mapped from a path
  kPseudo,   // "[vdso]" and other "[...]" pseudo files
  kKernel,   // "[kernel.kallsyms]...", "[kernel]"
  kPerfMap,  // "//anon", "[anon...", "/memfd:...", "/tmp/perf-*.map"
  kJitDump,  // ".../jit-PID.dump"
};

// The source for a mapping of `path`. (The build-id does not change the
// kind: every source checks it itself.)
SourceKind classify_source(std::string_view path);

// elf_source.cpp: the symbol table of an ELF object, from what the locator
// finds: the cache's symbol index of its build-id when there is a valid one
// (symbol_index_store.h), else built from the ELF files and kept there
// (`cache` may be null: then kept in memory only). Failures leave
// info.reason and info.note.
void load_elf_source(LoadedObject& o, ObjectLocator& locator, BuildIdCache* cache, const BuildId& id,
                     const std::string& path, pid_t pid);
// DWARF for source lines and inline frames, loaded on first use (looking for
// a debug file then if the object's files have none). False without.
bool load_elf_dwarf(LoadedObject& o, ObjectLocator& locator, NoteList& notes);

// pseudo_source.cpp: "[vdso]" and other pseudo files (kNone when absent).
void load_pseudo_source(LoadedObject& o, ObjectLocator& locator, const BuildId& id, const std::string& path);

// kernel_source.cpp: the kernel recorded with `recorded` (empty: the running
// one). Touches neither the Symbolizer's tables nor its notes (the note goes
// in info.note), so prefetch_kernel can run it on another thread: it reads
// `opts` and uses the build-id cache, whose object holds only its root (its
// files are written by atomic renames).
std::unique_ptr<LoadedObject> load_kernel_source(const SymbolizerOptions& opts, std::optional<BuildIdCache>& cache,
                                                 const BuildId& recorded);

// perf_map_source.cpp: JIT symbols of `pid` from PERF_MAP_DIR/perf-PID.map.
// The recording's copy (in the first of `copy_dirs` that has one) wins.
std::unique_ptr<LoadedObject> load_perf_map_source(const std::string& perf_map_dir,
                                                   const std::vector<std::string>& copy_dirs, pid_t pid);

// jitdump_source.cpp: the functions of a jitdump, looked up by the file
// offset of their code bytes (the recording's copy, in the first of
// `copy_dirs` that has one, wins over `recorded_path`).
std::unique_ptr<LoadedObject> load_jitdump_source(const std::string& recorded_path,
                                                  const std::vector<std::string>& copy_dirs);
// The DEBUG_INFO line of the code at `offset`, if the dump has one.
std::optional<SourceLine> jitdump_srcline(const LoadedObject& o, uint64_t offset);

}  // namespace sonde
