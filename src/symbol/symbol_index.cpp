#include "symbol/symbol_index.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "elf/symbol_table.h"
#include "util/byte_append.h"

namespace sonde {

namespace {

// On-disk header, followed by addrs u64[count], sizes u64[count],
// names {u32 offset, u32 length}[count] into the string table, then the
// string table (strings_bytes). file_size is the whole file.
struct SymbolIndexHeader {
  char magic[8];
  uint32_t version;
  uint32_t sources;
  uint8_t build_id_size;
  uint8_t reserved[3];
  uint8_t build_id[20];
  uint64_t count;
  uint64_t strings_bytes;
  uint64_t file_size;
};
static_assert(sizeof(SymbolIndexHeader) == 64);
static_assert(offsetof(SymbolIndexHeader, version) == 8);
static_assert(offsetof(SymbolIndexHeader, build_id_size) == 16);
static_assert(offsetof(SymbolIndexHeader, build_id) == 20);
static_assert(offsetof(SymbolIndexHeader, count) == 40);
static_assert(offsetof(SymbolIndexHeader, file_size) == 56);

constexpr char kSymbolIndexMagic[8] = {'S', 'O', 'N', 'D', 'E', 'S', 'Y', 'M'};
constexpr uint32_t kSymbolIndexVersion = 1;
constexpr size_t kBytesPerSymbol = 8 + 8 + 8;

// Fixed-width loads from bytes of any alignment (fuzzed inputs are not
// aligned; mmap'ed files are).
uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool index_fail(std::string* why, const char* what) {
  if (why) *why = what;
  return false;
}

std::nullopt_t reject(std::string* why, const char* what) {
  index_fail(why, what);
  return std::nullopt;
}

// The header's promises against the bytes at hand and the object wanted.
bool check_header(const SymbolIndexHeader& h, size_t file_size, const SymbolIndexKey& want, std::string* why) {
  if (std::memcmp(h.magic, kSymbolIndexMagic, sizeof kSymbolIndexMagic) != 0) return index_fail(why, "not a symbol index");
  if (h.version != kSymbolIndexVersion) return index_fail(why, "another version of the symbol index");
  if (h.file_size != file_size) return index_fail(why, "truncated or extended");
  if (file_size > kSymbolIndexMaxBytes) return index_fail(why, "larger than any index sonde writes");
  if (h.build_id_size > sizeof h.build_id || h.build_id_size != want.build_id.size ||
      std::memcmp(h.build_id, want.build_id.bytes.data(), h.build_id_size) != 0)
    return index_fail(why, "made for another build-id");
  if (h.sources != want.sources) return index_fail(why, "made from other debug files");
  const uint64_t body = file_size - sizeof h;
  if (h.count > body / kBytesPerSymbol) return index_fail(why, "symbol count larger than the file");
  if (h.strings_bytes != body - h.count * kBytesPerSymbol) return index_fail(why, "size does not match its counts");
  return true;
}

}  // namespace

std::string encode_symbol_index(const SymbolTable& table, const SymbolIndexKey& key) {
  const auto syms = table.symbols();
  std::string strings;
  std::vector<uint32_t> names;
  names.reserve(syms.size() * 2);
  for (const TableSymbol& s : syms) {
    names.push_back(static_cast<uint32_t>(strings.size()));
    names.push_back(static_cast<uint32_t>(s.name.size()));
    strings.append(s.name);
  }
  SymbolIndexHeader h{};
  std::memcpy(h.magic, kSymbolIndexMagic, sizeof kSymbolIndexMagic);
  h.version = kSymbolIndexVersion;
  h.sources = key.sources;
  h.build_id_size = key.build_id.size;
  std::memcpy(h.build_id, key.build_id.bytes.data(), key.build_id.size);
  h.count = syms.size();
  h.strings_bytes = strings.size();
  h.file_size = sizeof h + syms.size() * kBytesPerSymbol + strings.size();
  std::string out;
  out.reserve(h.file_size);
  append_pod(out, h);
  for (const TableSymbol& s : syms) append_pod(out, s.addr);
  for (const TableSymbol& s : syms) append_pod(out, s.size);
  out.append(reinterpret_cast<const char*>(names.data()), names.size() * sizeof(uint32_t));
  out += strings;
  return out;
}

std::optional<SymbolIndex> SymbolIndex::open(std::span<const uint8_t> bytes, const SymbolIndexKey& want,
                                             std::string* why) {
  SymbolIndexHeader h;
  if (bytes.size() < sizeof h) return reject(why, "shorter than its header");
  std::memcpy(&h, bytes.data(), sizeof h);
  if (!check_header(h, bytes.size(), want, why)) return std::nullopt;
  SymbolIndex x;
  x.count_ = static_cast<size_t>(h.count);
  x.addrs_ = bytes.data() + sizeof h;
  x.sizes_ = x.addrs_ + x.count_ * 8;
  x.names_ = x.sizes_ + x.count_ * 8;
  x.strings_ = reinterpret_cast<const char*>(x.names_ + x.count_ * 8);
  // Lookups binary-search the addresses and hand out names as views: both
  // are checked once here, not on every lookup.
  for (size_t i = 0; i < x.count_; ++i) {
    if (i > 0 && x.addr(i - 1) >= x.addr(i)) return reject(why, "addresses out of order");
    const uint64_t off = load_u32(x.names_ + i * 8), len = load_u32(x.names_ + i * 8 + 4);
    if (off > h.strings_bytes || len > h.strings_bytes - off) return reject(why, "a name past the string table");
  }
  return x;
}

uint64_t SymbolIndex::addr(size_t i) const { return load_u64(addrs_ + i * 8); }
uint64_t SymbolIndex::size(size_t i) const { return load_u64(sizes_ + i * 8); }

std::string_view SymbolIndex::name(size_t i) const {
  return {strings_ + load_u32(names_ + i * 8), load_u32(names_ + i * 8 + 4)};
}

size_t SymbolIndex::find(uint64_t vaddr) const {
  // The first symbol starting after vaddr, then the one before it.
  size_t lo = 0, hi = count_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (vaddr < addr(mid)) hi = mid;
    else lo = mid + 1;
  }
  if (lo == 0) return kNone;
  const size_t i = lo - 1;
  return vaddr - addr(i) < size(i) ? i : kNone;
}

}  // namespace sonde
