#include <fmt/format.h>
#include <sys/stat.h>

#include "cache/buildid_cache.h"
#include "symbol/kallsyms_index.h"
#include "symbol/symbol_sources.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/fs.h"

namespace sonde {

namespace {

std::string index_path_for(const std::string& kallsyms_file) {
  return kallsyms_file.substr(0, kallsyms_file.rfind('/') + 1) + kKallsymsIndexName;
}

// The table of a cached kallsyms copy from its index, if there is a valid
// one for exactly this copy. Names are then read from the copy.
bool load_kallsyms_index(const std::string& kallsyms_file, LoadedObject& o) {
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
void save_kallsyms_index(const std::string& kallsyms_file, const LoadedObject& o) {
  struct stat st {};
  if (o.ksyms.empty() || o.ksyms.names_fd() < 0 || ::fstat(o.ksyms.names_fd(), &st) != 0) return;
  try {
    write_file_atomic(index_path_for(kallsyms_file),
                      encode_kallsyms_index(o.ksyms, o.modules, {static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)}));
  } catch (const Error&) {
  }
}

// Parses `file` into the object's table. With `copy_to_cache` (a first read
// of /proc/kallsyms) it keeps a copy for the next run, and for perf, which
// reads the same [kernel.kallsyms]/ID/kallsyms, written as it is read.
// Kernel addresses hidden by kptr_restrict read as zeros: load_kallsyms then
// fails and the copy is dropped.
void parse_kallsyms(LoadedObject& o, const std::string& file, std::optional<BuildIdCache>& cache, const BuildId& want,
                    bool copy_to_cache, bool cached) {
  std::string why;
  std::optional<BuildIdCache::PendingFile> copy;
  if (copy_to_cache) {
    try {
      copy = cache->begin_kallsyms(want);
    } catch (const Error&) {
      // A read-only or full cache only costs the next run some time.
    }
  }
  bool ok = load_kallsyms(file, o.ksyms, o.modules, &why, copy ? copy->out.fd() : -1);
  if (!ok && copy) {
    // Perhaps only the copy failed (disk full): read again without one.
    copy.reset();
    o.ksyms = KernelSymbols();
    o.modules.clear();
    ok = load_kallsyms(file, o.ksyms, o.modules, &why);
  }
  if (!ok) {
    o.info.reason = Reason::kUnknown;
    o.info.note = why;
  } else if (copy) {
    try {
      cache->commit_kallsyms(*copy);
      save_kallsyms_index(copy->entry.dir + "/kallsyms", o);
    } catch (const Error&) {
    }
  } else if (cached) {
    save_kallsyms_index(file, o);
  }
  o.info.symbol_file = file;
  o.info.symbol_count = o.ksyms.size();
}

// -k: a vmlinux's function symbols as the kernel's table, when its
// build-id is the recorded kernel's (or the recording names none).
bool load_vmlinux(LoadedObject& o, const std::string& path, const BuildId& recorded) {
  std::string why;
  auto elf = ElfFile::open(path, &why);
  if (!elf) {
    o.info.note = fmt::format("-k {}: {}", path, why);
    return false;
  }
  if (!recorded.empty() && !elf->build_id().empty() && elf->build_id() != recorded) {
    o.info.note = fmt::format("-k {}: build-id {} is not the recorded kernel's ({}): kallsyms used instead", path,
                              elf->build_id().hex(), recorded.hex());
    return false;
  }
  SymbolTable table;
  table.add_elf(*elf, false);
  table.finalize();
  for (const TableSymbol& s : table.symbols()) o.ksyms.add(s.addr, s.name, 0);
  o.ksyms.finish();
  o.info.symbol_file = path;
  o.info.symbol_count = o.ksyms.size();
  o.info.source = "vmlinux";
  return !o.ksyms.empty();
}

}  // namespace

std::unique_ptr<LoadedObject> load_kernel_source(const SymbolizerOptions& opts, std::optional<BuildIdCache>& cache,
                                                 const BuildId& recorded) {
  auto o = std::make_unique<LoadedObject>();
  o->info.path = "[kernel.kallsyms]";
  o->info.build_id = recorded;
  o->info.kind = ObjectKind::kKernel;
  if (!opts.vmlinux_path.empty() && load_vmlinux(*o, opts.vmlinux_path, recorded)) return o;
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
    parse_kallsyms(*o, *file, cache, want, save_copy, cached);
  }
  return o;
}

}  // namespace sonde
