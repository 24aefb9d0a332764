// Symbolization for every sonde command.
//
// Addresses are first normalized by the caller to (object, file offset)
// through the MMAP2 records; the Symbolizer then resolves them. Hot path:
// resolve an ObjectHandle once per mapping with object(), then call lookup()
// per frame. Each object is opened and indexed once per Symbolizer; lookups
// are binary searches and return views into Symbolizer-owned storage (no
// allocation per lookup; demangled names are produced once per symbol).
//
// A binary is used only if its build-id matches the mapping's. Where an
// object's files are found, in order (sonde's build-id cache; the mapped
// path, first /proc/PID/root/PATH; separate debug files; MiniDebugInfo;
// debuginfod): symbol/object_locator.h. Which source a mapping's symbols come
// from (ELF, pseudo file, kernel, perf map): symbol/symbol_sources.h. Frames
// that cannot be resolved keep a reason; a wrong name is never returned.
//
// Not thread-safe: use one Symbolizer per thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/build_id.h"
#include "elf/dwarf_info.h"  // SourceLine, InlineFrame
#include "symbol/reason.h"

namespace sonde {

struct SymbolizerOptions {
  bool demangle = true;
  // Demangled names carry their parameter list ("ns::f(int)") only when set;
  // by default they are the qualified name ("ns::f"), as perf prints them.
  bool demangle_params = false;
  // Build-id cache root; empty = BuildIdCache::default_root(). use_cache=false
  // skips it entirely.
  bool use_cache = true;
  std::string cache_root;
  // Roots holding .build-id/XX/REST.debug and PATH-mirrored debug files.
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  // Look for the mapped path under /proc/PID/root first (containers).
  bool use_proc_root = true;
  // debuginfod, when DEBUGINFOD_URLS is set (no-op otherwise); a failed
  // server is not asked again for the rest of the run. Its timeout and
  // retries come from the environment, where the CLI sets sonde's defaults
  // (kernel/process_environment.h).
  bool use_debuginfod = true;
  // Kernel and JIT sources (overridable for tests).
  std::string kallsyms_path = "/proc/kallsyms";
  std::string kernel_notes_path = "/sys/kernel/notes";
  std::string perf_map_dir = "/tmp";
  // Directories holding a recording's copies of its JIT files (perf maps,
  // jitdumps; jit/jit_files.h), looked in before the recorded paths.
  std::vector<std::string> jit_dirs;
  // report -k: the kernel's symbols from this vmlinux (its ELF symbol
  // table, at its link addresses) when its build-id is the recording's.
  std::string vmlinux_path;
};

enum class ObjectKind : uint8_t {
  kElf,      // lookup() takes a file offset
  kKernel,   // lookup() takes a kernel virtual address (modules included)
  kPerfMap,  // JIT code from /tmp/perf-PID.map: lookup() takes the runtime address
  kJitDump,  // JIT code from a jitdump: lookup() takes the file offset of its code bytes in the dump
  kNone,     // nothing to symbolize against ([vdso] without a cached copy, ...)
};

struct ObjectHandle {
  uint32_t index = UINT32_MAX;
  bool valid() const { return index != UINT32_MAX; }
  bool operator==(const ObjectHandle&) const = default;
};

struct ResolvedSymbol {
  std::string_view name;      // demangled (perf style) unless disabled; empty when unresolved
  std::string_view raw_name;  // as in the symbol table
  uint64_t offset = 0;        // address - symbol start
  uint64_t symbol_addr = 0;   // link-time address of the symbol (runtime for JIT/kernel)
  uint64_t symbol_size = 0;
  std::string_view dso;       // the mapping's path (or "[kernel.kallsyms]", "[module]")
  Reason reason = Reason::kNotFound;
  bool resolved() const { return reason == Reason::kNone; }
};

struct ObjectInfo {
  std::string path;             // as given to object()
  BuildId build_id;             // as given (may be empty)
  ObjectKind kind = ObjectKind::kNone;
  Reason reason = Reason::kNone;  // object-level failure (kNone when symbols are loaded)
  std::string source;           // where symbols came from: "cache", "path", "debug-file",
                                // "debuglink", "minidebuginfo", "debuginfod", "kallsyms", "perf-map"
  std::string symbol_file;      // the file whose symbol table was used
  std::string note;             // one line for the user ("" if nothing to say)
  size_t symbol_count = 0;
};

class Symbolizer {
 public:
  explicit Symbolizer(SymbolizerOptions opts = {});
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The object mapped from `path` with build-id `id` (may be empty: then the
  // path is used unverified, as perf does) in process `pid` (0 = unknown).
  // Memoized by build-id (or path when empty): call once per mapping.
  // Special paths: "[kernel.kallsyms]" -> kernel(id); "//anon", "[anon:...]",
  // "/memfd:..." and "/tmp/perf-*.map" -> the pid's perf map.
  ObjectHandle object(const BuildId& id, std::string_view path, pid_t pid = 0);
  // The running kernel's symbols from kallsyms when `recorded_id` is empty or
  // matches /sys/kernel/notes; else a cached [kernel.kallsyms]/ID/kallsyms.
  ObjectHandle kernel(const BuildId& recorded_id);
  // Starts loading what kernel(recorded_id) needs on another thread, so the
  // first kernel frame does not wait for 100K+ kallsyms lines to be parsed
  // (sonde script calls it when it reads the kernel's mapping). The loader
  // reads the options and the build-id cache only; it is joined by the
  // kernel() call that takes its result, or by the destructor.
  void prefetch_kernel(const BuildId& recorded_id);
  // JIT symbols from PERF_MAP_DIR/perf-PID.map.
  ObjectHandle perf_map(pid_t pid);
  // JIT symbols from a jitdump (the recording's copy first).
  ObjectHandle jitdump(const std::string& recorded_path);

  // `offset`: file offset for kElf objects, address for kKernel/kPerfMap.
  ResolvedSymbol lookup(ObjectHandle h, uint64_t offset);

  // Source line and inline frames; DWARF is loaded on first use per object.
  std::optional<SourceLine> srcline(ObjectHandle h, uint64_t offset);
  size_t inline_frames(ObjectHandle h, uint64_t offset, std::vector<InlineFrame>& out, bool with_function = false);

  const ObjectInfo& info(ObjectHandle h) const;
  // Distinct one-line notes gathered so far (debuginfod failures, mismatches),
  // for the command to print once on stderr.
  const std::vector<std::string>& notes() const;
  const SymbolizerOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sonde
