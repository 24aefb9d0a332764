// An ELF object's finished function-symbol table as bytes (docs/format.md,
// "Symbol index"): written once into the build-id cache beside the object
// (ROOT/PATH/BUILDID/sonde-symbols.idx) and memory-mapped by later runs, so
// a report does not read, sort and dedupe the ELF symbol tables again for an
// object whose table depends only on its build-id.
//
// One layout for every use: the first run encodes the table it built from
// the ELF files and looks up in those bytes too (SymbolIndex), so the cached
// and the fresh path answer alike by construction.
//
// Native byte order (the cache is this machine's). Untrusted when read back:
// the header's sizes are checked against the bytes at hand, the build-id and
// the sources against the object being symbolised, every address against
// the previous one and every name against the string table; anything else
// is ignored (and rewritten by the caller).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "elf/build_id.h"

namespace sonde {

class SymbolTable;

inline constexpr char kSymbolIndexName[] = "sonde-symbols.idx";
// Larger files are neither written nor read (a table of 10M symbols with
// 100-byte names is ~1.2 GB; the largest Debian binaries have ~500K).
inline constexpr uint64_t kSymbolIndexMaxBytes = uint64_t{1} << 30;

// Which files the table was built from: the object's own tables are always
// in; a separate debug file's .symtab or MiniDebugInfo's add symbols. (For a
// given build-id each is the same file wherever it is found.)
enum SymbolIndexSource : uint32_t {
  kIndexFromDebugFile = 1u << 0,
  kIndexFromMiniDebugInfo = 1u << 1,
};

// What an index must describe to be used.
struct SymbolIndexKey {
  BuildId build_id;
  uint32_t sources = 0;  // SymbolIndexSource bits
};

// The bytes of the index of a finalized table.
std::string encode_symbol_index(const SymbolTable& table, const SymbolIndexKey& key);

// A validated, read-only view over index bytes (which must outlive it).
class SymbolIndex {
 public:
  static constexpr size_t kNone = SIZE_MAX;

  // nullopt and *why when `bytes` is not a valid index for `want`.
  static std::optional<SymbolIndex> open(std::span<const uint8_t> bytes, const SymbolIndexKey& want,
                                         std::string* why);

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The symbol containing the link-time address `vaddr`, or kNone.
  size_t find(uint64_t vaddr) const;
  uint64_t addr(size_t i) const;
  uint64_t size(size_t i) const;
  std::string_view name(size_t i) const;

 private:
  const uint8_t* addrs_ = nullptr;  // u64[count], strictly increasing
  const uint8_t* sizes_ = nullptr;  // u64[count]
  const uint8_t* names_ = nullptr;  // {u32 offset, u32 length}[count]
  const char* strings_ = nullptr;
  size_t count_ = 0;
};

}  // namespace sonde
