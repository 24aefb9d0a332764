// Scanned SDT probes cached per build-id beside perf's build-id cache:
//
//   ROOT/ABS/PATH/BUILDID/probes          perf's text format (perf list sdt / perf probe read it)
//   ROOT/ABS/PATH/BUILDID/sonde-probes    sonde's JSON: every site, offsets, resolved symbols
//   ROOT/.build-id/XX/REST -> ../../ABS/PATH/BUILDID   (created only if absent, as perf does)
//   ROOT/.sonde/sdt-index                 provider<TAB>name<TAB>build-id<TAB>path, one line per name
//
// A binary is parsed once per build-id. Writes are atomic (temporary + rename);
// nothing is written outside ROOT: paths must be absolute and normalized,
// build-ids hex. Concurrent `sdt add`s rewrite the index last-writer-wins
// (each entry stays valid; a lost line is re-added on the next lookup).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "probe/sdt_note.h"

namespace sonde::probe {

struct IndexEntry {
  std::string provider;
  std::string name;
  std::string build_id;  // hex
  std::string path;
};

class ProbeCache {
 public:
  explicit ProbeCache(std::string root);
  // --buildid-dir if non-empty, else $SONDE_BUILDID_DIR, else $HOME/.debug.
  static std::string default_root(const std::string& cli_dir = "");
  const std::string& root() const { return root_; }

  // The probes of the file at `path` (symlinks resolved), scanned from the
  // file (faster than loading the cached JSON); if `store` and the build-id
  // is not cached yet, cached (files without probes or without a build-id
  // are not stored). SdtArgs::Skip (listing only) implies no store.
  SdtFile get(const std::string& path, bool store = true, SdtArgs args = SdtArgs::Parse);
  // Scans and caches unconditionally; returns what was stored.
  SdtFile add(const std::string& path);
  // Removes a cached binary by path or build-id (hex). Returns the number of
  // entries removed.
  size_t remove(const std::string& path_or_build_id);

  std::vector<IndexEntry> index() const;
  // Loads a cached entry by build-id and path; nullopt if absent or unreadable.
  std::optional<SdtFile> load(const std::string& path, const std::string& build_id_hex) const;

 private:
  std::optional<std::string> entry_dir(const std::string& abs_path, const std::string& bid) const;
  void store(const SdtFile& f);
  void write_index(const std::vector<IndexEntry>& entries);
  std::string root_;
};

// perf's `probes` file text for a scanned file (one %sdt_ header per name,
// one uprobe_events line per site; unconvertible args are left out, as perf does).
std::string perf_probes_text(const SdtFile& f);

// An absolute, normalized path that can be appended under a cache root.
bool is_safe_abs_path(const std::string& p);
bool is_hex_build_id(const std::string& s);

}  // namespace sonde::probe
