#include "symbol/symbol_index_store.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <utility>

#include "cache/buildid_cache.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/fs.h"

namespace sonde {

std::optional<MappedFile> MappedFile::open(const std::string& path, size_t max_bytes) {
  UniqueFd fd = open_regular_file(path.c_str());
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_size <= 0 || static_cast<uint64_t>(st.st_size) > max_bytes)
    return std::nullopt;
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (p == MAP_FAILED) return std::nullopt;
  MappedFile m;
  m.data_ = p;
  m.size_ = size;
  return m;
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

std::string symbol_index_path(const BuildIdCache& cache, const BuildId& id) {
  auto entry = cache.find(id);
  return entry ? entry->dir + "/" + kSymbolIndexName : std::string();
}

std::optional<CachedSymbolIndex> load_symbol_index(const BuildIdCache& cache, const SymbolIndexKey& key,
                                                   std::string* why) {
  const std::string path = symbol_index_path(cache, key.build_id);
  if (path.empty()) return std::nullopt;
  auto file = MappedFile::open(path, kSymbolIndexMaxBytes);
  if (!file) return std::nullopt;
  auto view = SymbolIndex::open(file->bytes(), key, why);
  if (!view) return std::nullopt;
  // The view points into the mapping, which a move does not relocate.
  return CachedSymbolIndex{std::move(*file), *view};
}

bool save_symbol_index(BuildIdCache& cache, const SymbolIndexKey& key, const std::string& object_path,
                       const std::string& bytes) {
  if (key.build_id.empty() || bytes.size() > kSymbolIndexMaxBytes) return false;
  try {
    // The entry's folder as the link names it, else one for this path; made
    // (and checked) inside the root, so a planted symlink cannot move the
    // write elsewhere.
    auto entry = cache.find(key.build_id);
    const std::string& path = entry ? entry->path : object_path;
    if (path.empty() || path.front() != '/') return false;
    const std::string dir = cache.make_entry_dir(path, key.build_id);
    cache.link_entry_if_absent(path, key.build_id);
    write_file_atomic(dir + "/" + kSymbolIndexName, bytes);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace sonde
