#include "symbol/kallsyms_index.h"

#include <cstddef>
#include <cstring>

#include "util/byte_reader.h"
#include "util/byte_append.h"

namespace sonde {

namespace {

// On-disk header, followed by: keys[count] (u32 offsets from base when
// narrow, else u64 addresses), name_pos[count] (u32), then per module:
// start u64, end u64, name length u32, the name, zero padding to 8 bytes.
struct IndexHeader {
  char magic[8];
  uint32_t version;
  uint32_t narrow;
  uint64_t text_size;
  uint64_t text_inode;
  uint64_t base;
  uint64_t count;
  uint64_t module_count;
  uint64_t modules_bytes;
};
static_assert(sizeof(IndexHeader) == 64);
static_assert(offsetof(IndexHeader, version) == 8);
static_assert(offsetof(IndexHeader, text_size) == 16);
static_assert(offsetof(IndexHeader, base) == 32);
static_assert(offsetof(IndexHeader, count) == 40);
static_assert(offsetof(IndexHeader, modules_bytes) == 56);

constexpr char kKallsymsMagic[8] = {'S', 'O', 'N', 'D', 'E', 'K', 'S', 'I'};
constexpr uint32_t kKallsymsVersion = 1;

bool kallsyms_fail(std::string* why, std::string what) {
  if (why) *why = std::move(what);
  return false;
}

}  // namespace

std::string encode_kallsyms_index(const KernelSymbols& syms, const std::vector<ModuleRange>& modules, KallsymsText text) {
  std::string mods;
  for (const ModuleRange& m : modules) {
    append_pod(mods, m.start);
    append_pod(mods, m.end);
    append_pod(mods, static_cast<uint32_t>(m.name.size()));
    mods += m.name;
    mods.append((8 - mods.size() % 8) % 8, '\0');
  }
  IndexHeader h{};
  std::memcpy(h.magic, kKallsymsMagic, sizeof kKallsymsMagic);
  h.version = kKallsymsVersion;
  h.narrow = syms.narrow() ? 1 : 0;
  h.text_size = text.size;
  h.text_inode = text.inode;
  h.base = syms.base();
  h.count = syms.size();
  h.module_count = modules.size();
  h.modules_bytes = mods.size();
  std::string out;
  append_pod(out, h);
  if (syms.narrow())
    append_pods(out, syms.offsets());
  else
    append_pods(out, syms.addresses());
  append_pods(out, syms.name_positions());
  out += mods;
  return out;
}

bool decode_kallsyms_index(std::span<const uint8_t> bytes, KallsymsText text, UniqueFd names, KernelSymbols& syms,
                           std::vector<ModuleRange>& modules, std::string* why) {
  if (bytes.size() < sizeof(IndexHeader)) return kallsyms_fail(why, "shorter than its header");
  IndexHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kKallsymsMagic, sizeof kKallsymsMagic) != 0 || h.version != kKallsymsVersion) return kallsyms_fail(why, "not a version 1 index");
  if (h.text_size != text.size || h.text_inode != text.inode) return kallsyms_fail(why, "made from another kallsyms copy");
  if (h.narrow > 1) return kallsyms_fail(why, "bad flags");
  // Only a table with symbols is ever written (an empty one would blank every
  // kernel frame), and a count of 0 would hand memcpy a null pointer.
  if (h.count == 0) return kallsyms_fail(why, "no symbols");
  // Sizes from the header are checked against the file, never trusted.
  const size_t key_size = h.narrow ? 4 : 8;
  const size_t body = bytes.size() - sizeof h;
  if (h.count > body / (key_size + 4)) return kallsyms_fail(why, "symbol count larger than the file");
  const size_t arrays = static_cast<size_t>(h.count) * (key_size + 4);
  if (h.modules_bytes != body - arrays) return kallsyms_fail(why, "size does not match its counts");
  KernelSymbols::Arrays a;
  a.base = h.base;
  a.narrow = h.narrow == 1;
  const uint8_t* p = bytes.data() + sizeof h;
  const size_t n = static_cast<size_t>(h.count);
  if (a.narrow) {
    a.lo.resize(n);
    std::memcpy(a.lo.data(), p, n * 4);
  } else {
    a.addrs.resize(n);
    std::memcpy(a.addrs.data(), p, n * 8);
  }
  p += n * key_size;
  a.name_pos.resize(n);
  std::memcpy(a.name_pos.data(), p, n * 4);
  p += n * 4;
  // Strictly increasing keys (lookups binary-search them); names inside
  // the text they are read from.
  for (size_t i = 1; i < n; ++i)
    if (a.narrow ? a.lo[i - 1] >= a.lo[i] : a.addrs[i - 1] >= a.addrs[i]) return kallsyms_fail(why, "addresses out of order");
  if (a.narrow && n > 0 && a.lo.back() > UINT64_MAX - a.base) return kallsyms_fail(why, "addresses past the end of memory");
  for (uint32_t pos : a.name_pos)
    if (pos >= text.size) return kallsyms_fail(why, "a name position past the end of the text");
  std::vector<ModuleRange> mods;
  ByteReader r(p, static_cast<size_t>(h.modules_bytes));
  for (uint64_t i = 0; i < h.module_count; ++i) {
    ModuleRange m;
    uint32_t len = 0;
    std::span<const uint8_t> name;
    if (!r.read(m.start) || !r.read(m.end) || !r.read(len) || !r.bytes(len, name) || !r.skip((8 - (20 + len) % 8) % 8))
      return kallsyms_fail(why, "a module entry overruns the index");
    if (m.end < m.start || (!mods.empty() && m.start < mods.back().start)) return kallsyms_fail(why, "modules out of order");
    m.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
    mods.push_back(std::move(m));
  }
  if (r.remaining() != 0) return kallsyms_fail(why, "bytes after the last module");
  syms.adopt(std::move(a), std::move(names));
  modules = std::move(mods);
  return true;
}

}  // namespace sonde
