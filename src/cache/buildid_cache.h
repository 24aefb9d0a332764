// The build-id cache, laid out like perf's ~/.debug so perf and sonde share it:
//
//   ROOT/.build-id/XX/REST -> ../../ABS/PATH/BUILDID        (symlink)
//   ROOT/ABS/PATH/BUILDID/elf                               (hard link, reflink or copy)
//   ROOT/ABS/PATH/BUILDID/probes                            (SDT engineer's file)
//   ROOT/[kernel.kallsyms]/BUILDID/kallsyms                 (kernel symbols)
//   ROOT/[vdso]/BUILDID/vdso                                (the vdso image)
//
// Every write goes to a unique temporary name in the target folder and is
// renamed into place, so concurrent writers leave a valid cache. Nothing is
// ever written outside ROOT: build-ids must be hex, paths must be absolute and
// free of "." / ".." components. Lookups verify the cached file's build-id.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/build_id.h"
#include "util/atomic_file.h"
#include "util/fd.h"

namespace sonde {

class BuildIdCache {
 public:
  // `root` is the cache folder (need not exist yet; created on first write).
  explicit BuildIdCache(std::string root);

  // --buildid-dir DIR if given (non-empty), else $SONDE_BUILDID_DIR, else
  // $HOME/.debug.
  static std::string default_root(const std::string& cli_dir = "");

  const std::string& root() const { return root_; }

  struct Entry {
    BuildId build_id;
    std::string path;  // the original absolute path ("[kernel.kallsyms]" for the kernel)
    std::string dir;   // ROOT/PATH/BUILDID
  };

  // Adds an ELF object (symlinks resolved to the real file, as perf does).
  // Returns the entry. Throws sonde::Error (runtime) with a one-line reason
  // when the file is missing, has no build-id or the cache cannot be written.
  Entry add(const std::string& path);
  // Same, when the caller already knows the build-id (e.g. the recorder): the
  // file is still verified before it is linked in.
  Entry add(const std::string& path, const BuildId& expected);
  // Stores a kernel symbol file under [kernel.kallsyms]/BUILDID/kallsyms,
  // copied 256 KiB at a time (it is 5+ MB). `cancelled` (optional) is asked
  // between chunks: when it says yes, nothing is stored and the result is
  // empty. Throws when the file cannot be read or written, is empty, or
  // shows only zero addresses (kernel.kptr_restrict): such a copy is useless.
  std::optional<Entry> add_kallsyms(const BuildId& kernel_id, const std::string& kallsyms_path = "/proc/kallsyms",
                                    const std::function<bool()>& cancelled = {});
  // The same from text already read.
  Entry add_kallsyms_text(const BuildId& kernel_id, const std::string& text);
  // Stores a vdso image (copied out of a process's memory) under
  // [vdso]/BUILDID/vdso, as perf record does. Throws when the image's
  // build-id is not `id` or the cache cannot be written.
  Entry add_vdso(const BuildId& id, std::span<const uint8_t> image);

  // A kallsyms copy written while it is read (the text is 5+ MB: holding it
  // whole would be most of a report's memory): begin_kallsyms opens a
  // temporary file in the entry's folder, the caller writes to `out.fd()`,
  // then commit_kallsyms renames it into place (and links .build-id), or the
  // AtomicFile's destructor removes it.
  struct PendingFile {
    AtomicFile out;    // opened read-write: the caller may read it back
    std::string file;  // its name once in place ("kallsyms", "vdso")
    Entry entry;
  };
  PendingFile begin_kallsyms(const BuildId& kernel_id);
  Entry commit_kallsyms(PendingFile& file);

  // Removes the .build-id link and the BUILDID folder. false if absent.
  bool remove(const BuildId& id);
  // Every entry of .build-id/ whose link points to a folder in the cache.
  // Malformed links are skipped (listed in *skipped when non-null).
  std::vector<Entry> list(std::vector<std::string>* skipped = nullptr) const;
  // Removes entries whose original file no longer exists; returns them.
  std::vector<Entry> purge_missing();

  // The entry of a build-id, if its link exists and is well-formed.
  std::optional<Entry> find(const BuildId& id) const;
  // Path of the cached `elf` (or another file name, e.g. "debug",
  // "kallsyms") for `id`, only if present and, for ELF files, its build-id
  // matches. nullopt and *reason (when non-null) otherwise.
  std::optional<std::string> lookup(const BuildId& id, std::string_view file = "elf",
                                    std::string* reason = nullptr) const;

  // ROOT/PATH/BUILDID for an absolute, normalized path; nullopt when the path
  // is not acceptable (relative, "..", empty components).
  std::optional<std::string> entry_dir(const std::string& abs_path, const BuildId& id) const;

  // For files that other modules keep in an entry (the probe cache's
  // `probes` and `sonde-probes`): the entry's folder, created under the root
  // (a symlink planted on the way is refused), and its .build-id link, made
  // when absent (an existing link, perhaps perf's, is kept). Throws when the
  // path is not acceptable or the folder cannot be made inside the root.
  std::string make_entry_dir(const std::string& abs_path, const BuildId& id);
  void link_entry_if_absent(const std::string& abs_path, const BuildId& id);

 private:
  Entry link_in(const std::string& real_path, const BuildId& id, const std::string& file_name,
                bool is_elf);
  // A file of a pseudo object ("[kernel.kallsyms]", "[vdso]"): ROOT/NAME/BUILDID/FILE.
  PendingFile begin_pseudo(const std::string& name, const std::string& file, const BuildId& id);
  Entry commit_pseudo(PendingFile& f);
  std::string root_;
};

// True for a path that can safely be appended under the cache root: absolute,
// no "." or ".." components, no empty components, no NUL.
bool is_safe_cache_path(std::string_view abs_path);

}  // namespace sonde
