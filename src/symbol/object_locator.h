// Where an object's bytes are found by build-id: the one place that
// decides, for sonde's symbolizer and DWARF unwinder alike.
//
// For (build-id, path, pid), in order:
//   1. sonde's build-id cache (ROOT/.build-id/XX/REST -> .../elf);
//   2. the mapped path, first as /proc/PID/root/PATH (containers), then PATH;
//   3. separate debug files, when the object has no .symtab:
//      <debug-root>/.build-id/XX/REST.debug, the cache's `debug`, then
//      .gnu_debuglink beside the object, in its .debug/ and under each
//      debug root;
//   4. MiniDebugInfo (.gnu_debugdata of the object);
//   5. debuginfod: the debuginfo, then, if no copy of the object was found
//      at all, the executable.
// Pseudo files ("[vdso]", "[...]"): the cache's copy ([vdso]/ID/vdso), for
// [vdso] the running kernel's own image, then a debug vdso with the same
// build-id (which names the code between the image's entry points).
//
// Every candidate is used only if its build-id matches the recorded one (a
// mapping without one uses its path unverified, as perf does, and says so);
// paths are opened only as regular files (util/fd.h), so a FIFO where a
// binary was never blocks. What was skipped and why ends up in the result's
// note, run-level trouble (a corrupt cache entry, debuginfod down) in the
// NoteList. Not thread-safe: one per Symbolizer or unwinder.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elf/build_id.h"
#include "elf/elf_file.h"
#include "symbol/debuginfod_client.h"
#include "symbol/note_list.h"
#include "symbol/reason.h"

namespace sonde {

class BuildIdCache;

struct LocatorOptions {
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  bool use_proc_root = true;  // /proc/PID/root/PATH before PATH
  // Asked only by find_symbols and find_dwarf (DebuginfodClient).
  bool use_debuginfod = false;
};

// The files found for one object.
struct LocatedObject {
  std::unique_ptr<ElfFile> binary;  // the object itself: PT_LOADs, .dynsym, .eh_frame
  std::string binary_source;        // "cache", "path", "running vdso", "debuginfod"
  std::unique_ptr<ElfFile> debug;   // a separate debug file (full .symtab, DWARF)
  std::string debug_source;         // "debug-file", "cache", "debuglink", "debuginfod"
  std::unique_ptr<ElfFile> mini;    // MiniDebugInfo of `binary`
  Reason reason = Reason::kNone;    // kBuildIdMismatch or kNotFound when nothing fits
  std::string note;                 // one line: used unverified, a mismatch, not found
  bool found() const { return binary || debug; }
};

class ObjectLocator {
 public:
  // `cache` (may be null: no cache) and `notes` must outlive the locator.
  // Constructs the debuginfod client: see DebuginfodClient on threads.
  ObjectLocator(LocatorOptions opts, const BuildIdCache* cache, NoteList& notes);

  // The object's own file (steps 1-2; for pseudo files the cached copy or
  // the running vdso), for the unwinder's CFI and the symbolizer's PT_LOADs.
  LocatedObject find_binary(const BuildId& id, const std::string& path, pid_t pid);
  // Everything an ELF object's symbols come from (steps 1-5). When nothing
  // fits, the note also goes to the NoteList.
  LocatedObject find_symbols(const BuildId& id, const std::string& path, pid_t pid);
  // A pseudo file's image and, for a [vdso] image without .symtab, its
  // debug vdso.
  LocatedObject find_pseudo(const BuildId& id, const std::string& path);
  // A debug file with DWARF for an object whose files have none (source
  // lines are asked for on first use): local debug files, then debuginfod.
  std::unique_ptr<ElfFile> find_dwarf(const BuildId& want, const ElfFile& binary, const std::string& original_path);

 private:
  void from_cache(const BuildId& id, LocatedObject& found);
  void from_path(const BuildId& id, const std::string& path, pid_t pid, LocatedObject& found);
  void pseudo_binary(const BuildId& id, const std::string& path, LocatedObject& found);
  std::unique_ptr<ElfFile> find_debug_file(const BuildId& want, const ElfFile* binary,
                                           const std::string& original_path, std::string* source);
  std::unique_ptr<ElfFile> accept_debug_file(const std::string& path, const BuildId& want, const ElfFile* binary,
                                             std::optional<uint32_t> crc);
  std::unique_ptr<ElfFile> find_vdso_debug_file(const ElfFile& image);

  LocatorOptions opts_;
  const BuildIdCache* cache_;
  NoteList& notes_;
  DebuginfodClient debuginfod_;
};

}  // namespace sonde
