#include "symbol/symbolizer.h"

#include <fmt/format.h>

#include <future>
#include <unordered_map>

#include "cache/buildid_cache.h"
#include "symbol/demangle.h"
#include "symbol/symbol_sources.h"

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

LocatorOptions locator_options(const SymbolizerOptions& o) {
  LocatorOptions l;
  l.debug_roots = o.debug_roots;
  l.use_proc_root = o.use_proc_root;
  l.use_debuginfod = o.use_debuginfod;
  return l;
}

}  // namespace

// The dispatcher: objects loaded by their source (symbol_sources.h),
// memoized by build-id, and the per-frame lookups over them.
struct Symbolizer::Impl {
  SymbolizerOptions opts;
  std::optional<BuildIdCache> cache;
  NoteList notes;
  // Constructed here, on the caller's thread: it may set libdebuginfod's
  // environment, which must happen before any worker thread runs.
  ObjectLocator locator;
  std::vector<std::unique_ptr<LoadedObject>> objects;
  std::unordered_map<std::string, uint32_t> by_key;
  StringArena arena;  // demangled names
  std::unordered_map<const char*, std::string_view> demangled_inline;
  // Kernel objects being loaded on another thread (prefetch_kernel), by key.
  std::unordered_map<std::string, std::future<std::unique_ptr<LoadedObject>>> kernel_prefetch;

  explicit Impl(SymbolizerOptions o)
      : opts(std::move(o)),
        cache(opts.use_cache ? std::optional<BuildIdCache>(BuildIdCache::default_root(opts.cache_root)) : std::nullopt),
        locator(locator_options(opts), cache ? &*cache : nullptr, notes) {}

  std::optional<ObjectHandle> memoized(const std::string& key) const {
    if (auto it = by_key.find(key); it != by_key.end()) return ObjectHandle{it->second};
    return std::nullopt;
  }

  ObjectHandle add_object(std::string key, std::unique_ptr<LoadedObject> o) {
    uint32_t idx = static_cast<uint32_t>(objects.size());
    objects.push_back(std::move(o));
    by_key.emplace(std::move(key), idx);
    return ObjectHandle{idx};
  }

  LoadedObject* object_of(ObjectHandle h) {
    return h.valid() && h.index < objects.size() ? objects[h.index].get() : nullptr;
  }

  std::string_view demangle(std::string_view raw) {
    auto d = sonde::demangle(raw, opts.demangle_params);
    return d ? arena.add(*d) : raw;
  }

  std::string_view symbol_name(LoadedObject& o, const TableSymbol* s) {
    if (!opts.demangle) return s->name;
    if (o.demangled.empty()) o.demangled.resize(o.table.size());
    std::string_view& slot = o.demangled[o.table.index_of(s)];
    if (slot.data() == nullptr) slot = demangle(s->name);
    return slot;
  }

  std::string_view kernel_name(LoadedObject& o, size_t i, std::string_view raw) {
    if (!opts.demangle) return raw;
    auto [it, fresh] = o.kernel_demangled.try_emplace(static_cast<uint32_t>(i));
    if (fresh) it->second = demangle(raw);
    return it->second;
  }

  std::optional<uint64_t> to_vaddr(const LoadedObject& o, uint64_t offset) const {
    if (o.info.kind != ObjectKind::kElf) return offset;
    if (!o.addr_file) return std::nullopt;
    return o.addr_file->offset_to_vaddr(offset);
  }

  // The symbol of `addr` in the kernel's table (modules name their dso).
  void lookup_kernel(LoadedObject& o, std::optional<uint64_t> addr, ResolvedSymbol& r) {
    size_t i = addr ? o.ksyms.find(*addr) : KernelSymbols::kNone;
    if (i == KernelSymbols::kNone) {
      r.reason = Reason::kUnknown;
      return;
    }
    if (const ModuleRange* m = find_module(o.modules, *addr)) r.dso = m->name;
    r.raw_name = o.ksyms.name(i);
    r.name = kernel_name(o, i, r.raw_name);
    r.offset = *addr - o.ksyms.addr(i);
    r.symbol_addr = o.ksyms.addr(i);
    r.symbol_size = o.ksyms.size(i);
    r.reason = Reason::kNone;
  }

  std::string_view index_name(LoadedObject& o, size_t i) {
    std::string_view raw = o.index->name(i);
    if (!opts.demangle) return raw;
    if (o.demangled.empty()) o.demangled.resize(o.index->size());
    std::string_view& slot = o.demangled[i];
    if (slot.data() == nullptr) slot = demangle(raw);
    return slot;
  }

  void lookup_index(LoadedObject& o, std::optional<uint64_t> addr, ResolvedSymbol& r) {
    const size_t i = addr ? o.index->find(*addr) : SymbolIndex::kNone;
    if (i == SymbolIndex::kNone) {
      r.reason = Reason::kUnknown;
      return;
    }
    r.raw_name = o.index->name(i);
    r.name = index_name(o, i);
    r.symbol_addr = o.index->addr(i);
    r.offset = *addr - r.symbol_addr;
    r.symbol_size = o.index->size(i);
    r.reason = Reason::kNone;
  }

  void lookup_table(LoadedObject& o, std::optional<uint64_t> addr, ResolvedSymbol& r) {
    if (o.index) return lookup_index(o, addr, r);
    const TableSymbol* s = addr ? o.table.find(*addr) : nullptr;
    if (!s) {
      r.reason = Reason::kUnknown;
      return;
    }
    r.raw_name = s->name;
    r.name = symbol_name(o, s);
    r.offset = *addr - s->addr;
    r.symbol_addr = s->addr;
    r.symbol_size = s->size;
    r.reason = Reason::kNone;
  }

  // An ELF or pseudo file's object, memoized: found objects are shared by
  // build-id whatever their path; failures are remembered per (build-id,
  // path), since another mapping of the same build-id may come from a path
  // (or pid root) that does exist.
  ObjectHandle file_object(SourceKind kind, const BuildId& id, const std::string& path, pid_t pid) {
    std::string key = id.empty() ? "path:" + path : "id:" + id.hex();
    std::string fail_key = key + "|" + path;
    for (const auto* k : {&key, &fail_key})
      if (auto h = memoized(*k)) return *h;
    auto o = std::make_unique<LoadedObject>();
    o->info.path = path;
    o->info.build_id = id;
    if (kind == SourceKind::kPseudo) load_pseudo_source(*o, locator, id, path);
    else load_elf_source(*o, locator, cache ? &*cache : nullptr, id, path, pid);
    bool found = o->info.reason == Reason::kNone || o->info.reason == Reason::kUnknown;
    return add_object(found ? std::move(key) : std::move(fail_key), std::move(o));
  }
};

Symbolizer::Symbolizer(SymbolizerOptions opts) : impl_(std::make_unique<Impl>(std::move(opts))) {}

Symbolizer::~Symbolizer() = default;

ObjectHandle Symbolizer::object(const BuildId& id, std::string_view path_view, pid_t pid) {
  std::string path(path_view);
  switch (classify_source(path)) {
    case SourceKind::kKernel: return kernel(id);
    case SourceKind::kPerfMap: return perf_map(pid);
    case SourceKind::kPseudo: return impl_->file_object(SourceKind::kPseudo, id, path, pid);
    case SourceKind::kJitDump: return jitdump(path);
    case SourceKind::kElf: break;
  }
  return impl_->file_object(SourceKind::kElf, id, path, pid);
}

ObjectHandle Symbolizer::kernel(const BuildId& recorded) {
  std::string key = "kernel:" + recorded.hex();
  if (auto h = impl_->memoized(key)) return *h;
  std::unique_ptr<LoadedObject> o;
  if (auto p = impl_->kernel_prefetch.find(key); p != impl_->kernel_prefetch.end()) {
    o = p->second.get();  // rethrows what the loader threw
    impl_->kernel_prefetch.erase(p);
  } else {
    o = load_kernel_source(impl_->opts, impl_->cache, recorded);
  }
  if (!o->info.note.empty()) impl_->notes.add(o->info.note);
  return impl_->add_object(std::move(key), std::move(o));
}

void Symbolizer::prefetch_kernel(const BuildId& recorded) {
  std::string key = "kernel:" + recorded.hex();
  if (impl_->by_key.count(key) || impl_->kernel_prefetch.count(key)) return;
  impl_->kernel_prefetch.emplace(key, std::async(std::launch::async, [this, recorded] {
                                   return load_kernel_source(impl_->opts, impl_->cache, recorded);
                                 }));
}

ObjectHandle Symbolizer::perf_map(pid_t pid) {
  std::string key = fmt::format("perfmap:{}", pid);
  if (auto h = impl_->memoized(key)) return *h;
  return impl_->add_object(std::move(key),
                           load_perf_map_source(impl_->opts.perf_map_dir, impl_->opts.jit_dirs, pid));
}

ObjectHandle Symbolizer::jitdump(const std::string& path) {
  std::string key = "jitdump:" + path;
  if (auto h = impl_->memoized(key)) return *h;
  auto o = load_jitdump_source(path, impl_->opts.jit_dirs);
  if (!o->info.note.empty()) impl_->notes.add(o->info.note);
  return impl_->add_object(std::move(key), std::move(o));
}

ResolvedSymbol Symbolizer::lookup(ObjectHandle h, uint64_t offset) {
  ResolvedSymbol r;
  LoadedObject* o = impl_->object_of(h);
  if (!o) return r;
  r.dso = o->info.path;
  if (o->info.reason != Reason::kNone) {
    r.reason = o->info.reason;
    return r;
  }
  auto addr = impl_->to_vaddr(*o, offset);
  if (o->info.kind == ObjectKind::kKernel) impl_->lookup_kernel(*o, addr, r);
  else impl_->lookup_table(*o, addr, r);
  return r;
}

// DWARF answers for ELF objects only; the tables are loaded on first use.
std::optional<SourceLine> Symbolizer::srcline(ObjectHandle h, uint64_t offset) {
  LoadedObject* o = impl_->object_of(h);
  if (o && o->info.kind == ObjectKind::kJitDump) return jitdump_srcline(*o, offset);
  if (!o || o->info.kind != ObjectKind::kElf || o->info.reason != Reason::kNone) return std::nullopt;
  auto addr = impl_->to_vaddr(*o, offset);
  if (!addr || !load_elf_dwarf(*o, impl_->locator, impl_->notes)) return std::nullopt;
  return o->dwarf->line(*addr);
}

size_t Symbolizer::inline_frames(ObjectHandle h, uint64_t offset, std::vector<InlineFrame>& out, bool with_function) {
  out.clear();
  LoadedObject* o = impl_->object_of(h);
  if (!o || o->info.kind != ObjectKind::kElf || o->info.reason != Reason::kNone) return 0;
  auto addr = impl_->to_vaddr(*o, offset);
  if (!addr || !load_elf_dwarf(*o, impl_->locator, impl_->notes)) return 0;
  o->dwarf->inline_frames(*addr, out, with_function);
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

const std::vector<std::string>& Symbolizer::notes() const { return impl_->notes.lines(); }
const SymbolizerOptions& Symbolizer::options() const { return impl_->opts; }

}  // namespace sonde
