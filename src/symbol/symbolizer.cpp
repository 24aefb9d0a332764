#include "symbol/symbolizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>
#include <unordered_map>
#include <unordered_set>

#include "cache/buildid_cache.h"
#include "elf/elf_file.h"
#include "elf/symbol_table.h"
#include "symbol/debuginfod_library.h"
#include "symbol/demangle.h"
#include "symbol/kallsyms_index.h"
#include "symbol/kernel_symbols.h"
#include "util/fd.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde {

std::string_view reason_text(Reason r) {
  switch (r) {
    case Reason::kNone: return "";
    case Reason::kUnknown: return "[unknown]";
    case Reason::kBuildIdMismatch: return "build-id mismatch";
    case Reason::kNotFound: return "not found";
  }
  return "[unknown]";
}

namespace {

struct Object {
  ObjectInfo info;
  // Every file whose string tables the symbol table points into.
  std::vector<std::unique_ptr<ElfFile>> files;
  const ElfFile* addr_file = nullptr;   // PT_LOADs used for file offset -> vaddr
  const ElfFile* dwarf_file = nullptr;  // has .debug_info
  std::string original_path;            // for .gnu_debuglink lookups
  SymbolTable table;
  std::string text;                     // perf map contents (names point here)
  KernelSymbols ksyms;                  // kernel: its own compact table instead of `table`
  std::vector<ModuleRange> modules;     // kernel: address ranges of modules
  // kernel: demangled names by symbol index, only for the symbols looked up
  // (a per-symbol vector would cost 16 bytes for each of 100K+ symbols).
  std::unordered_map<uint32_t, std::string_view> kernel_demangled;
  std::vector<std::string_view> demangled;  // per symbol, filled on first lookup
  std::unique_ptr<DwarfInfo> dwarf;
  bool dwarf_tried = false;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string dirname_of(const std::string& p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : p.substr(0, slash);
}

}  // namespace

struct Symbolizer::Impl {
  SymbolizerOptions opts;
  std::optional<BuildIdCache> cache;
  std::vector<std::unique_ptr<Object>> objects;
  std::unordered_map<std::string, uint32_t> by_key;
  std::vector<std::string> notes;
  std::unordered_set<std::string> note_set;
  StringArena arena;  // demangled names
  std::unordered_map<const char*, std::string_view> demangled_inline;
  // Kernel objects being loaded on another thread (prefetch_kernel), by key.
  std::unordered_map<std::string, std::future<std::unique_ptr<Object>>> kernel_prefetch;

  debuginfod_client* dbg = nullptr;
  const DebuginfodLibrary* dbg_lib = nullptr;
  bool dbg_init = false;
  bool dbg_dead = false;
  std::unordered_set<BuildId, BuildIdHash> dbg_missing;

  ~Impl() {
    if (dbg) dbg_lib->end(dbg);
  }

  void note(std::string n) {
    if (note_set.insert(n).second) notes.push_back(std::move(n));
  }

  ObjectHandle add_object(std::string key, std::unique_ptr<Object> o) {
    uint32_t idx = static_cast<uint32_t>(objects.size());
    objects.push_back(std::move(o));
    by_key.emplace(std::move(key), idx);
    return ObjectHandle{idx};
  }

  std::string_view demangle(std::string_view raw) {
    auto d = sonde::demangle(raw, opts.demangle_params);
    return d ? arena.add(*d) : raw;
  }

  std::string_view symbol_name(Object& o, const TableSymbol* s) {
    if (!opts.demangle) return s->name;
    if (o.demangled.empty()) o.demangled.resize(o.table.size());
    std::string_view& slot = o.demangled[o.table.index_of(s)];
    if (slot.data() == nullptr) slot = demangle(s->name);
    return slot;
  }

  debuginfod_client* debuginfod() {
    if (!dbg_init) {
      dbg_init = true;
      const char* urls = getenv("DEBUGINFOD_URLS");
      if (opts.use_debuginfod && urls && *urls) {
        // libdebuginfod's default stall timeout is 90 s; a profiler report
        // must not hang that long on a dead server. A user setting wins.
        setenv("DEBUGINFOD_TIMEOUT", std::to_string(opts.debuginfod_timeout_s).c_str(), 0);
        // One attempt: the first failure turns debuginfod off for the run
        // anyway, and libdebuginfod's default two retries triple the wait.
        setenv("DEBUGINFOD_RETRY_LIMIT", "0", 0);
        const char* why = nullptr;
        dbg_lib = debuginfod_library(&why);
        if (!dbg_lib) {
          note(fmt::format("debuginfod: {}; skipped", why));
          return nullptr;
        }
        dbg = dbg_lib->begin();
        if (!dbg) note("debuginfod: cannot start the client; skipped");
      }
    }
    return dbg_dead ? nullptr : dbg;
  }

  // Asks debuginfod for the debuginfo (or executable) of `id`. A failure
  // other than "not there" marks the servers dead for the rest of the run.
  std::unique_ptr<ElfFile> from_debuginfod(const BuildId& id, bool executable) {
    if (id.empty() || dbg_missing.count(id)) return nullptr;
    debuginfod_client* c = debuginfod();
    if (!c) return nullptr;
    char* path = nullptr;
    int fd = executable ? dbg_lib->find_executable(c, id.bytes.data(), id.size, &path)
                        : dbg_lib->find_debuginfo(c, id.bytes.data(), id.size, &path);
    if (fd < 0) {
      free(path);
      if (fd == -ENOENT) {
        if (executable) dbg_missing.insert(id);
        return nullptr;
      }
      dbg_dead = true;
      const char* urls = getenv("DEBUGINFOD_URLS");
      note(fmt::format("debuginfod ({}) failed: {}; not asked again in this run", urls ? urls : "",
                       errno_text(-fd)));
      return nullptr;
    }
    ::close(fd);
    std::string p = path;
    free(path);
    std::string why;
    auto f = ElfFile::open(p, &why);
    if (!f) {
      note(fmt::format("debuginfod: {}", why));
      return nullptr;
    }
    if (!(f->build_id() == id)) {
      note(fmt::format("debuginfod: {} has build-id {}, expected {}; ignored", p, f->build_id().hex(), id.hex()));
      return nullptr;
    }
    return f;
  }

  // A separate debug file: <root>/.build-id/XX/REST.debug, the cache's
  // `debug`, then .gnu_debuglink next to the object, in .debug/, and under
  // each debug root. Only files with the wanted build-id (or, when either
  // side has none, the debuglink CRC) are accepted.
  // A vdso with a .symtab and the image's build-id: a debug file by
  // build-id (debug roots, cache), else the one the kernel's build installs
  // (/lib/modules/RELEASE/vdso/vdso64.so, unstripped).
  std::unique_ptr<ElfFile> find_vdso_debug_file(const ElfFile& image) {
    std::string source;
    auto f = find_debug_file(image.build_id(), &image, "", &source);
    if (f && f->has_symtab()) return f;
    struct utsname u {};
    if (image.build_id().empty() || ::uname(&u) != 0) return nullptr;
    std::string why;
    f = ElfFile::open(fmt::format("/lib/modules/{}/vdso/vdso64.so", u.release), &why);
    if (f && f->has_symtab() && f->build_id() == image.build_id()) return f;
    return nullptr;
  }

  std::unique_ptr<ElfFile> find_debug_file(const BuildId& want, const ElfFile* runtime,
                                           const std::string& original_path, std::string* source) {
    auto accept = [&](const std::string& p, std::optional<uint32_t> crc) -> std::unique_ptr<ElfFile> {
      struct stat st;
      if (stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
      if (runtime && runtime->path() == p) return nullptr;
      std::string why;
      auto f = ElfFile::open(p, &why);
      if (!f) {
        note(fmt::format("ignoring debug file {}", why));
        return nullptr;
      }
      if (!want.empty() && !f->build_id().empty()) {
        if (f->build_id() == want) return f;
        note(fmt::format("ignoring debug file {}: build-id mismatch", p));
        return nullptr;
      }
      if (crc && debuglink_crc32(p) == crc) return f;
      return nullptr;
    };
    if (!want.empty()) {
      std::string hex = want.hex();
      for (const auto& root : opts.debug_roots) {
        if (auto f = accept(root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug", std::nullopt)) {
          *source = "debug-file";
          return f;
        }
      }
      if (cache) {
        if (auto p = cache->lookup(want, "debug")) {
          if (auto f = accept(*p, std::nullopt)) {
            *source = "cache";
            return f;
          }
        }
      }
    }
    if (runtime) {
      if (auto dl = runtime->debuglink()) {
        std::vector<std::string> dirs;
        for (const std::string& orig : {original_path, runtime->path()}) {
          if (orig.empty() || orig.front() != '/') continue;
          std::string dir = dirname_of(orig);
          dirs.push_back(dir);
          dirs.push_back(dir + "/.debug");
          for (const auto& root : opts.debug_roots) dirs.push_back(root + dir);
        }
        for (const auto& d : dirs) {
          if (auto f = accept(d + "/" + dl->name, dl->crc)) {
            *source = "debuglink";
            return f;
          }
        }
      }
    }
    return nullptr;
  }

  void load_elf(Object& o, const BuildId& id, const std::string& path, pid_t pid) {
    o.info.kind = ObjectKind::kElf;
    o.original_path = path;
    std::unique_ptr<ElfFile> runtime;
    std::string source;
    bool saw_mismatch = false;

    // 1. sonde's build-id cache.
    if (cache && !id.empty()) {
      std::string why;
      if (auto p = cache->lookup(id, "elf", &why)) {
        runtime = ElfFile::open(*p, &why);
        if (runtime) source = "cache";
        else note(fmt::format("build-id cache: {}", why));
      } else if (cache->find(id) && why.find("No such file") == std::string::npos) {
        // Present but unusable (corrupt, replaced). An entry without `elf`
        // (e.g. only SDT `probes`) is normal and not worth a note.
        note(fmt::format("build-id cache: {}", why));
      }
    }
    // 2. The mapped path, through the process's root first (containers).
    if (!runtime && !path.empty() && path.front() == '/') {
      std::vector<std::string> candidates;
      if (pid > 0 && opts.use_proc_root) candidates.push_back(fmt::format("/proc/{}/root{}", pid, path));
      candidates.push_back(path);
      for (const auto& c : candidates) {
        std::string why;
        auto f = ElfFile::open(c, &why);
        if (!f) continue;
        if (id.empty() || f->build_id() == id) {
          if (id.empty()) o.info.note = fmt::format("{}: no recorded build-id, used unverified", path);
          runtime = std::move(f);
          source = "path";
          break;
        }
        saw_mismatch = true;
        o.info.note = fmt::format("{}: build-id mismatch (file has {}, recorded {})", c,
                                  f->build_id().empty() ? "none" : f->build_id().hex(), id.hex());
      }
    }
    const BuildId want = !id.empty() ? id : runtime ? runtime->build_id() : BuildId{};

    // 3. Separate debug files, when the object lacks a full symbol table.
    std::unique_ptr<ElfFile> debug;
    std::string debug_source;
    if (!runtime || !runtime->has_symtab()) debug = find_debug_file(want, runtime.get(), path, &debug_source);
    // 4. MiniDebugInfo.
    std::unique_ptr<ElfFile> mini;
    if (runtime && !debug && !runtime->has_symtab() && runtime->section_info(".gnu_debugdata")) {
      std::string why;
      mini = runtime->open_minidebuginfo(&why);
      if (!mini) note(why);
    }
    // 5. debuginfod.
    if (!debug && !mini && (!runtime || !runtime->has_symtab())) {
      debug = from_debuginfod(want, false);
      if (debug) debug_source = "debuginfod";
      if (!debug && !runtime) {
        runtime = from_debuginfod(want, true);
        if (runtime) source = "debuginfod";
      }
    }

    if (!runtime && !debug) {
      o.info.reason = saw_mismatch ? Reason::kBuildIdMismatch : Reason::kNotFound;
      if (o.info.note.empty())
        o.info.note = fmt::format("{}{}: not found", path, id.empty() ? "" : " (build-id " + id.hex() + ")");
      note(o.info.note);
      return;
    }
    // The full symbol table first: it decides among aliases, as in perf.
    if (debug) o.table.add_elf(*debug, false);
    if (mini) o.table.add_elf(*mini, false);
    if (runtime) o.table.add_elf(*runtime, true);
    o.table.finalize();
    o.info.symbol_count = o.table.size();
    o.addr_file = runtime ? runtime.get() : debug.get();
    if (debug && debug->has_dwarf()) o.dwarf_file = debug.get();
    else if (runtime && runtime->has_dwarf()) o.dwarf_file = runtime.get();
    if (debug) {
      o.info.source = debug_source;
      o.info.symbol_file = debug->path();
    } else if (mini) {
      o.info.source = "minidebuginfo";
      o.info.symbol_file = mini->path();
    } else {
      o.info.source = source;
      o.info.symbol_file = runtime->path();
    }
    for (auto* f : {&runtime, &debug, &mini})
      if (*f) o.files.push_back(std::move(*f));
    if (o.table.empty()) {
      o.info.reason = Reason::kUnknown;
      o.info.note = fmt::format("{}: no symbols", o.info.symbol_file);
    }
  }

  bool ensure_dwarf(Object& o) {
    if (o.dwarf_tried) return o.dwarf != nullptr;
    o.dwarf_tried = true;
    if (!o.dwarf_file && o.info.kind == ObjectKind::kElf && o.addr_file) {
      // Symbols came from a file without DWARF: look for debug info now,
      // only for objects someone asked source lines for.
      const ElfFile* runtime = o.files.front().get();
      std::string src;
      BuildId want = !o.info.build_id.empty() ? o.info.build_id : runtime->build_id();
      auto d = find_debug_file(want, runtime, o.original_path, &src);
      if (!d || !d->has_dwarf()) d = from_debuginfod(want, false);
      if (d && d->has_dwarf()) {
        o.dwarf_file = d.get();
        o.files.push_back(std::move(d));
      }
    }
    if (!o.dwarf_file) return false;
    std::string why;
    o.dwarf = DwarfInfo::open(*o.dwarf_file, &why);
    if (!o.dwarf) note(why);
    return o.dwarf != nullptr;
  }

  std::optional<uint64_t> to_vaddr(const Object& o, uint64_t offset) const {
    if (o.info.kind != ObjectKind::kElf) return offset;
    if (!o.addr_file) return std::nullopt;
    return o.addr_file->offset_to_vaddr(offset);
  }
};

Symbolizer::Symbolizer(SymbolizerOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->opts = std::move(opts);
  if (impl_->opts.use_cache) impl_->cache.emplace(BuildIdCache::default_root(impl_->opts.cache_root));
}

Symbolizer::~Symbolizer() = default;

ObjectHandle Symbolizer::object(const BuildId& id, std::string_view path_view, pid_t pid) {
  std::string path(path_view);
  if (starts_with(path, "[kernel.kallsyms]") || path == "[kernel]") return kernel(id);
  if (starts_with(path, "//anon") || starts_with(path, "[anon") || starts_with(path, "/memfd:") ||
      (starts_with(path, "/tmp/perf-") && path.size() > 4 && path.substr(path.size() - 4) == ".map"))
    return perf_map(pid);
  // Found objects are shared by build-id whatever their path; failures are
  // remembered per (build-id, path), since another mapping of the same
  // build-id may come from a path (or pid root) that does exist.
  std::string key = id.empty() ? "path:" + path : "id:" + id.hex();
  std::string fail_key = key + "|" + path;
  for (const auto* k : {&key, &fail_key})
    if (auto it = impl_->by_key.find(*k); it != impl_->by_key.end()) return ObjectHandle{it->second};
  auto o = std::make_unique<Object>();
  o->info.path = path;
  o->info.build_id = id;
  if (path == "[vdso]" || (!path.empty() && path.front() == '[')) {
    // Pseudo files: a cached copy (perf keeps [vdso]/ID/vdso), or for the
    // vdso this kernel's own.
    o->info.kind = ObjectKind::kElf;
    std::optional<std::string> p;
    if (impl_->cache && !id.empty()) p = impl_->cache->lookup(id, path == "[vdso]" ? "vdso" : "elf");
    std::string why;
    auto f = p ? ElfFile::open(*p, &why) : nullptr;
    std::string source = "cache";
    if (!(f && f->build_id() == id) && path == "[vdso]") {
      // The running kernel's vdso is this process's own: usable when the
      // recording was made on this kernel (or has no build-id to compare).
      f = running_vdso(&why);
      source = "running vdso";
      if (f && !id.empty() && !(f->build_id() == id)) f.reset();
    }
    if (f && (id.empty() || f->build_id() == id)) {
      if (path == "[vdso]" && !f->has_symtab()) {
        // The image has only .dynsym (its entry points); the kernel's debug
        // vdso names the static code between them.
        if (auto debug = impl_->find_vdso_debug_file(*f)) {
          o->table.add_elf(*debug, false);
          source += " + " + debug->path();
          o->files.push_back(std::move(debug));
        }
      }
      o->table.add_elf(*f, false);
      o->table.finalize();
      o->info.source = source;
      o->info.symbol_file = f->path();
      o->info.symbol_count = o->table.size();
      o->addr_file = f.get();
      o->files.push_back(std::move(f));
    } else {
      o->info.kind = ObjectKind::kNone;
      o->info.reason = Reason::kNotFound;
    }
  } else {
    impl_->load_elf(*o, id, path, pid);
  }
  bool found = o->info.reason == Reason::kNone || o->info.reason == Reason::kUnknown;
  return impl_->add_object(found ? std::move(key) : std::move(fail_key), std::move(o));
}

std::string index_path_for(const std::string& kallsyms_file) {
  return kallsyms_file.substr(0, kallsyms_file.rfind('/') + 1) + kKallsymsIndexName;
}

// The table of a cached kallsyms copy from its index, if there is a valid
// one for exactly this copy. Names are then read from the copy.
bool load_kallsyms_index(const std::string& kallsyms_file, Object& o) {
  UniqueFd text = open_regular_file(kallsyms_file.c_str());
  struct stat st {};
  if (!text || ::fstat(text.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const std::string idx = index_path_for(kallsyms_file);
  auto bytes = read_small_file(idx);
  if (!bytes) return false;
  KallsymsText id{static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)};
  std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  if (!decode_kallsyms_index(b, id, std::move(text), o.ksyms, o.modules, nullptr)) return false;
  o.info.symbol_file = idx;
  o.info.symbol_count = o.ksyms.size();
  return true;
}

// Writes the index of the table just parsed from a cached copy (best
// effort: a read-only cache only costs the next run the parsing). Bound to
// the inode the names were read from, whatever the path points to now.
void save_kallsyms_index(const std::string& kallsyms_file, const Object& o) {
  struct stat st {};
  if (o.ksyms.empty() || o.ksyms.names_fd() < 0 || ::fstat(o.ksyms.names_fd(), &st) != 0) return;
  try {
    write_file_atomic(index_path_for(kallsyms_file),
                      encode_kallsyms_index(o.ksyms, o.modules, {static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)}));
  } catch (const Error&) {
  }
}

// Builds the kernel object for `recorded` without touching the symbolizer's
// tables or notes (the note goes in info.note), so that prefetch_kernel can
// run it on another thread: it reads opts and uses the build-id cache, whose
// object holds only its root (its files are written by atomic renames).
std::unique_ptr<Object> load_kernel_object(const SymbolizerOptions& opts, std::optional<BuildIdCache>& cache,
                                           const BuildId& recorded) {
  auto o = std::make_unique<Object>();
  o->info.path = "[kernel.kallsyms]";
  o->info.build_id = recorded;
  o->info.kind = ObjectKind::kKernel;
  auto running = read_build_id_from_notes_file(opts.kernel_notes_path);
  std::optional<std::string> file;
  const bool is_running = recorded.empty() || (running && *running == recorded);
  const BuildId& want = recorded.empty() && running ? *running : recorded;
  // A cached copy first: /proc/kallsyms is generated by the kernel on every
  // read (tens of milliseconds for 100K+ symbols); the cached text of the same
  // build-id is the same symbols for the price of a file read.
  if (cache && !want.empty()) {
    file = cache->lookup(want, "kallsyms");
    if (file) o->info.source = "cache";
  }
  const bool cached = file.has_value();
  bool save_copy = false;
  if (!file && is_running) {
    file = opts.kallsyms_path;
    o->info.source = "kallsyms";
    save_copy = cache && !want.empty() && opts.kallsyms_path == "/proc/kallsyms";
  }
  if (!file) {
    o->info.reason = Reason::kBuildIdMismatch;
    o->info.note = fmt::format("kernel build-id {} differs from the running kernel's ({}) and is not cached",
                               recorded.hex(), running ? running->hex() : "unknown");
  } else if (cached && load_kallsyms_index(*file, *o)) {
    // The table as the last run left it beside the copy.
  } else {
    std::string why;
    // Keep a copy for the next run (and for perf, which reads the same
    // [kernel.kallsyms]/ID/kallsyms), written as it is read. Kernel addresses
    // hidden by kptr_restrict read as zeros: load_kallsyms then fails and the
    // copy is dropped.
    std::optional<BuildIdCache::PendingFile> copy;
    if (save_copy) {
      try {
        copy = cache->begin_kallsyms(want);
      } catch (const Error&) {
        // A read-only or full cache only costs the next run some time.
      }
    }
    bool ok = load_kallsyms(*file, o->ksyms, o->modules, &why, copy ? copy->fd.get() : -1);
    if (!ok && copy) {
      // Perhaps only the copy failed (disk full): read again without one.
      copy.reset();
      o->ksyms = KernelSymbols();
      o->modules.clear();
      ok = load_kallsyms(*file, o->ksyms, o->modules, &why);
    }
    if (!ok) {
      o->info.reason = Reason::kUnknown;
      o->info.note = why;
    } else if (copy) {
      try {
        cache->commit_kallsyms(*copy);
        save_kallsyms_index(copy->entry.dir + "/kallsyms", *o);
      } catch (const Error&) {
      }
    } else if (cached) {
      save_kallsyms_index(*file, *o);
    }
    o->info.symbol_file = *file;
    o->info.symbol_count = o->ksyms.size();
  }
  return o;
}

ObjectHandle Symbolizer::kernel(const BuildId& recorded) {
  std::string key = "kernel:" + recorded.hex();
  if (auto it = impl_->by_key.find(key); it != impl_->by_key.end()) return ObjectHandle{it->second};
  std::unique_ptr<Object> o;
  if (auto p = impl_->kernel_prefetch.find(key); p != impl_->kernel_prefetch.end()) {
    o = p->second.get();  // rethrows what the loader threw
    impl_->kernel_prefetch.erase(p);
  } else {
    o = load_kernel_object(impl_->opts, impl_->cache, recorded);
  }
  if (!o->info.note.empty()) impl_->note(o->info.note);
  return impl_->add_object(std::move(key), std::move(o));
}

void Symbolizer::prefetch_kernel(const BuildId& recorded) {
  std::string key = "kernel:" + recorded.hex();
  if (impl_->by_key.count(key) || impl_->kernel_prefetch.count(key)) return;
  impl_->kernel_prefetch.emplace(key, std::async(std::launch::async, [this, recorded] {
                                   return load_kernel_object(impl_->opts, impl_->cache, recorded);
                                 }));
}

ObjectHandle Symbolizer::perf_map(pid_t pid) {
  std::string key = fmt::format("perfmap:{}", pid);
  if (auto it = impl_->by_key.find(key); it != impl_->by_key.end()) return ObjectHandle{it->second};
  auto o = std::make_unique<Object>();
  std::string file = fmt::format("{}/perf-{}.map", impl_->opts.perf_map_dir, pid);
  o->info.path = file;
  o->info.kind = ObjectKind::kPerfMap;
  o->info.source = "perf-map";
  o->info.symbol_file = file;
  std::string why;
  if (pid <= 0 || !load_perf_map(file, o->text, o->table, &why)) {
    o->info.reason = Reason::kNotFound;
    o->info.note = pid <= 0 ? "anonymous memory without a pid" : why;
  }
  o->info.symbol_count = o->table.size();
  return impl_->add_object(std::move(key), std::move(o));
}

ResolvedSymbol Symbolizer::lookup(ObjectHandle h, uint64_t offset) {
  ResolvedSymbol r;
  if (!h.valid() || h.index >= impl_->objects.size()) return r;
  Object& o = *impl_->objects[h.index];
  r.dso = o.info.path;
  if (o.info.reason != Reason::kNone) {
    r.reason = o.info.reason;
    return r;
  }
  auto addr = impl_->to_vaddr(o, offset);
  if (o.info.kind == ObjectKind::kKernel) {
    size_t i = addr ? o.ksyms.find(*addr) : KernelSymbols::kNone;
    if (i == KernelSymbols::kNone) {
      r.reason = Reason::kUnknown;
      return r;
    }
    if (const ModuleRange* m = find_module(o.modules, *addr)) r.dso = m->name;
    r.raw_name = o.ksyms.name(i);
    r.name = r.raw_name;
    if (impl_->opts.demangle) {
      auto [it, fresh] = o.kernel_demangled.try_emplace(static_cast<uint32_t>(i));
      if (fresh) it->second = impl_->demangle(r.raw_name);
      r.name = it->second;
    }
    r.offset = *addr - o.ksyms.addr(i);
    r.symbol_addr = o.ksyms.addr(i);
    r.symbol_size = o.ksyms.size(i);
    r.reason = Reason::kNone;
    return r;
  }
  const TableSymbol* s = addr ? o.table.find(*addr) : nullptr;
  if (!s) {
    r.reason = Reason::kUnknown;
    return r;
  }
  r.raw_name = s->name;
  r.name = impl_->symbol_name(o, s);
  r.offset = *addr - s->addr;
  r.symbol_addr = s->addr;
  r.symbol_size = s->size;
  r.reason = Reason::kNone;
  return r;
}

std::optional<SourceLine> Symbolizer::srcline(ObjectHandle h, uint64_t offset) {
  if (!h.valid() || h.index >= impl_->objects.size()) return std::nullopt;
  Object& o = *impl_->objects[h.index];
  if (o.info.kind != ObjectKind::kElf || o.info.reason != Reason::kNone) return std::nullopt;
  auto addr = impl_->to_vaddr(o, offset);
  if (!addr || !impl_->ensure_dwarf(o)) return std::nullopt;
  return o.dwarf->line(*addr);
}

size_t Symbolizer::inline_frames(ObjectHandle h, uint64_t offset, std::vector<InlineFrame>& out) {
  out.clear();
  if (!h.valid() || h.index >= impl_->objects.size()) return 0;
  Object& o = *impl_->objects[h.index];
  if (o.info.kind != ObjectKind::kElf || o.info.reason != Reason::kNone) return 0;
  auto addr = impl_->to_vaddr(o, offset);
  if (!addr || !impl_->ensure_dwarf(o)) return 0;
  o.dwarf->inline_frames(*addr, out);
  if (impl_->opts.demangle) {
    for (auto& f : out) {
      if (f.function.empty()) continue;
      auto [it, fresh] = impl_->demangled_inline.try_emplace(f.function.data());
      if (fresh) it->second = impl_->demangle(f.function);
      f.function = it->second;
    }
  }
  return out.size();
}

const ObjectInfo& Symbolizer::info(ObjectHandle h) const {
  static const ObjectInfo invalid{};
  if (!h.valid() || h.index >= impl_->objects.size()) return invalid;
  return impl_->objects[h.index]->info;
}

const std::vector<std::string>& Symbolizer::notes() const { return impl_->notes; }
const SymbolizerOptions& Symbolizer::options() const { return impl_->opts; }

}  // namespace sonde
