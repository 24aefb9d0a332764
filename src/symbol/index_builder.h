// `sonde buildid-cache --index`: an object's symbol index (symbol_index.h)
// built ahead of time, exactly as the first report would build it (the same
// Symbolizer, so the same debug files and the same key), so that report
// finds it mapped.
#pragma once

#include <optional>
#include <string>

#include "elf/build_id.h"

namespace sonde {

struct IndexedObject {
  BuildId build_id;
  size_t symbols = 0;
  std::string index_path;  // empty when none could be written
  std::string error;       // one line when the object has no usable symbols or no index
  bool ok() const { return error.empty(); }
};

// The index of the ELF file at `path` (its build-id read from it, or `id`
// when the path is a cache entry's original path) in the cache at
// `cache_root`.
IndexedObject index_object(const std::string& cache_root, const std::string& path,
                           std::optional<BuildId> id = std::nullopt);

}  // namespace sonde
