#include "symbol/object_locator.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "cache/buildid_cache.h"
#include "symbol/kernel_symbols.h"  // running_vdso
#include "util/mapped_path.h"
#include "util/proc_maps.h"

namespace sonde {

namespace {

std::string dirname_of(const std::string& p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : p.substr(0, slash);
}

}  // namespace

ObjectLocator::ObjectLocator(LocatorOptions opts, const BuildIdCache* cache, NoteList& notes)
    : opts_(std::move(opts)),
      cache_(cache),
      notes_(notes),
      debuginfod_(opts_.use_debuginfod, notes) {}

LocatedObject ObjectLocator::find_binary(const BuildId& id, const std::string& path, pid_t pid) {
  LocatedObject found;
  if (is_pseudo_path(path)) {
    pseudo_binary(id, path, found);
    return found;
  }
  from_cache(id, found);
  if (!found.binary) from_path(id, path, pid, found);
  if (found.binary) found.reason = Reason::kNone;
  else if (found.reason == Reason::kNone) found.reason = Reason::kNotFound;
  return found;
}

// 1. sonde's build-id cache (lookup() has checked the build-id).
void ObjectLocator::from_cache(const BuildId& id, LocatedObject& found) {
  if (!cache_ || id.empty()) return;
  std::string why;
  if (auto p = cache_->lookup(id, "elf", &why)) {
    found.binary = ElfFile::open(*p, &why);
    if (found.binary) found.binary_source = "cache";
    else notes_.add(fmt::format("build-id cache: {}", why));
  } else if (cache_->find(id) && why.find("No such file") == std::string::npos) {
    // Present but unusable (corrupt, replaced). An entry without `elf`
    // (e.g. only SDT `probes`) is normal and not worth a note.
    notes_.add(fmt::format("build-id cache: {}", why));
  }
}

// 2. The mapped path, through the process's root first (containers). A
// mismatch leaves its note and kBuildIdMismatch, unless a later candidate fits.
void ObjectLocator::from_path(const BuildId& id, const std::string& path, pid_t pid, LocatedObject& found) {
  if (path.empty() || path.front() != '/') return;
  std::vector<std::string> candidates;
  if (pid > 0 && opts_.use_proc_root) candidates.push_back(proc_root_path(pid, path));
  candidates.push_back(path);
  for (const auto& c : candidates) {
    std::string why;
    auto f = ElfFile::open(c, &why);
    if (!f) continue;
    if (id.empty() || f->build_id() == id) {
      if (id.empty()) found.note = fmt::format("{}: no recorded build-id, used unverified", path);
      found.binary = std::move(f);
      found.binary_source = "path";
      return;
    }
    found.reason = Reason::kBuildIdMismatch;
    found.note = fmt::format("{}: build-id mismatch (file has {}, recorded {})", c,
                             f->build_id().empty() ? "none" : f->build_id().hex(), id.hex());
  }
}

// Pseudo files: a cached copy (perf keeps [vdso]/ID/vdso), or for the vdso
// this kernel's own, which is this process's: usable when the recording was
// made on this kernel (or has no build-id to compare).
void ObjectLocator::pseudo_binary(const BuildId& id, const std::string& path, LocatedObject& found) {
  const bool vdso = classify_mapped_path(path) == MappedPath::kVdso;
  std::optional<std::string> p;
  if (cache_ && !id.empty()) p = cache_->lookup(id, vdso ? "vdso" : "elf");
  std::string why;
  auto f = p ? ElfFile::open(*p, &why) : nullptr;
  std::string source = "cache";
  if (!(f && f->build_id() == id) && vdso) {
    f = running_vdso(&why);
    source = "running vdso";
    if (f && !id.empty() && !(f->build_id() == id)) f.reset();
  }
  if (f && (id.empty() || f->build_id() == id)) {
    found.binary = std::move(f);
    found.binary_source = std::move(source);
  } else {
    found.reason = Reason::kNotFound;
  }
}

LocatedObject ObjectLocator::find_pseudo(const BuildId& id, const std::string& path) {
  LocatedObject found;
  pseudo_binary(id, path, found);
  // The image has only .dynsym (its entry points); the kernel's debug vdso
  // names the static code between them.
  if (found.binary && classify_mapped_path(path) == MappedPath::kVdso && !found.binary->has_symtab()) {
    found.debug = find_vdso_debug_file(*found.binary);
    if (found.debug) found.debug_source = "debug vdso";
  }
  return found;
}

LocatedObject ObjectLocator::find_symbols(const BuildId& id, const std::string& path, pid_t pid) {
  LocatedObject found = find_binary(id, path, pid);
  const ElfFile* binary = found.binary.get();
  const bool full_symtab = binary && binary->has_symtab();
  const BuildId want = !id.empty() ? id : binary ? binary->build_id() : BuildId{};
  // 3. Separate debug files, when the object lacks a full symbol table.
  if (!full_symtab) found.debug = find_debug_file(want, binary, path, &found.debug_source);
  // 4. MiniDebugInfo.
  if (binary && !found.debug && !full_symtab && binary->section_info(".gnu_debugdata")) {
    std::string why;
    found.mini = binary->open_minidebuginfo(&why);
    if (!found.mini) notes_.add(why);
  }
  // 5. debuginfod.
  if (!found.debug && !found.mini && !full_symtab) {
    found.debug = debuginfod_.find(want, false);
    if (found.debug) found.debug_source = "debuginfod";
    if (!found.debug && !found.binary) {
      found.binary = debuginfod_.find(want, true);
      if (found.binary) found.binary_source = "debuginfod";
    }
  }
  if (found.found()) {
    found.reason = Reason::kNone;
    return found;
  }
  if (found.note.empty())
    found.note = fmt::format("{}{}: not found", path, id.empty() ? "" : " (build-id " + id.hex() + ")");
  notes_.add(found.note);
  return found;
}

std::unique_ptr<ElfFile> ObjectLocator::find_dwarf(const BuildId& want, const ElfFile& binary,
                                                   const std::string& original_path) {
  std::string source;
  auto d = find_debug_file(want, &binary, original_path, &source);
  if (!d || !d->has_dwarf()) d = debuginfod_.find(want, false);
  if (d && d->has_dwarf()) return d;
  return nullptr;
}

// A debug file candidate: a regular file other than the binary itself, with
// the wanted build-id (or, when either side has none, the debuglink CRC).
std::unique_ptr<ElfFile> ObjectLocator::accept_debug_file(const std::string& path, const BuildId& want,
                                                          const ElfFile* binary, std::optional<uint32_t> crc) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  if (binary && binary->path() == path) return nullptr;
  std::string why;
  auto f = ElfFile::open(path, &why);
  if (!f) {
    notes_.add(fmt::format("ignoring debug file {}", why));
    return nullptr;
  }
  if (!want.empty() && !f->build_id().empty()) {
    if (f->build_id() == want) return f;
    notes_.add(fmt::format("ignoring debug file {}: build-id mismatch", path));
    return nullptr;
  }
  if (crc && debuglink_crc32(path) == crc) return f;
  return nullptr;
}

// <root>/.build-id/XX/REST.debug, the cache's `debug`, then .gnu_debuglink
// next to the object, in .debug/, and under each debug root.
std::unique_ptr<ElfFile> ObjectLocator::find_debug_file(const BuildId& want, const ElfFile* binary,
                                                        const std::string& original_path, std::string* source) {
  if (!want.empty()) {
    std::string hex = want.hex();
    for (const auto& root : opts_.debug_roots) {
      std::string p = root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
      if (auto f = accept_debug_file(p, want, binary, std::nullopt)) {
        *source = "debug-file";
        return f;
      }
    }
    if (cache_) {
      if (auto p = cache_->lookup(want, "debug")) {
        if (auto f = accept_debug_file(*p, want, binary, std::nullopt)) {
          *source = "cache";
          return f;
        }
      }
    }
  }
  auto link = binary ? binary->debuglink() : std::nullopt;
  if (!link) return nullptr;
  std::vector<std::string> dirs;
  for (const std::string& orig : {original_path, binary->path()}) {
    if (orig.empty() || orig.front() != '/') continue;
    std::string dir = dirname_of(orig);
    dirs.push_back(dir);
    dirs.push_back(dir + "/.debug");
    for (const auto& root : opts_.debug_roots) dirs.push_back(root + dir);
  }
  for (const auto& d : dirs) {
    if (auto f = accept_debug_file(d + "/" + link->name, want, binary, link->crc)) {
      *source = "debuglink";
      return f;
    }
  }
  return nullptr;
}

// A vdso with a .symtab and the image's build-id: a debug file by build-id
// (debug roots, cache), else the one the kernel's build installs
// (/lib/modules/RELEASE/vdso/vdso64.so, unstripped).
std::unique_ptr<ElfFile> ObjectLocator::find_vdso_debug_file(const ElfFile& image) {
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

}  // namespace sonde
