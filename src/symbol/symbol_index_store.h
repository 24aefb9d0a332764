// Where an object's symbol index (symbol_index.h) lives: the build-id
// cache entry of its build-id (ROOT/PATH/BUILDID/sonde-symbols.idx, beside
// `elf`, so `buildid-cache --remove` and `--purge-missing` drop it with the
// object). Read by mapping the file; written as a whole under a temporary
// name and renamed into place, so two readers writing it at once leave one
// valid file and a reader never sees half of one.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "symbol/symbol_index.h"

namespace sonde {

class BuildIdCache;

// A read-only mapping of a whole file (unmapped on destruction).
class MappedFile {
 public:
  MappedFile() = default;
  // The regular file at `path`, if it opens and is at most `max_bytes` long.
  static std::optional<MappedFile> open(const std::string& path, size_t max_bytes);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// The index file of `key`'s build-id in the cache ("" when the build-id has
// no entry there).
std::string symbol_index_path(const BuildIdCache& cache, const BuildId& id);

// A valid index for `key` from the cache, mapped; nullopt when absent or
// not valid (*why says which, when non-null).
struct CachedSymbolIndex {
  MappedFile file;
  SymbolIndex view;
};
std::optional<CachedSymbolIndex> load_symbol_index(const BuildIdCache& cache, const SymbolIndexKey& key,
                                                   std::string* why = nullptr);

// Writes `bytes` as the index of `key`'s build-id, in its entry (made for
// `object_path`, the object's absolute path, when the build-id has none).
// Best effort: false when the cache cannot take it (read-only, a path it
// does not accept); the next run then builds the table again.
bool save_symbol_index(BuildIdCache& cache, const SymbolIndexKey& key, const std::string& object_path,
                       const std::string& bytes);

}  // namespace sonde
