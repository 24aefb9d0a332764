#include "symbol/index_builder.h"

#include <fmt/format.h>

#include <filesystem>

#include "cache/buildid_cache.h"
#include "symbol/symbol_index_store.h"
#include "symbol/symbolizer.h"

namespace sonde {

IndexedObject index_object(const std::string& cache_root, const std::string& path, std::optional<BuildId> id) {
  IndexedObject out;
  // The real file, as `buildid-cache --add` keeps it.
  std::error_code ec;
  const std::string real = std::filesystem::canonical(path, ec).string();
  const std::string object_path = ec ? path : real;
  if (!id) {
    id = ec ? std::nullopt : read_build_id(real);
    if (!id || id->empty()) {
      out.error = fmt::format("{}: not an ELF file with a build-id", path);
      return out;
    }
  }
  out.build_id = *id;
  SymbolizerOptions o;
  o.cache_root = cache_root;
  Symbolizer s(o);
  const ObjectInfo& info = s.info(s.object(*id, object_path));
  out.symbols = info.symbol_count;
  if (info.reason != Reason::kNone) {
    out.error = fmt::format("{}: {}", path, !info.note.empty() ? info.note : std::string(reason_text(info.reason)));
    return out;
  }
  out.index_path = symbol_index_path(BuildIdCache(cache_root), *id);
  if (out.index_path.empty() || !std::filesystem::exists(out.index_path))
    out.error = fmt::format("{}: the cache {} does not take an index", path, cache_root);
  return out;
}

}  // namespace sonde
