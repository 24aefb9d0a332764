// The symbol index kept per build-id in the cache (symbol/symbol_index.h):
// for every function of real Debian binaries it answers what the ELF
// symbol tables answer; a damaged, foreign or hostile index is rejected and
// rewritten; two writers at once leave one valid index; removing the cache
// entry removes it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "cache/buildid_cache.h"
#include "elf/elf_file.h"
#include "elf/symbol_table.h"
#include "support/test_support.h"
#include "symbol/symbol_index.h"
#include "symbol/symbol_index_store.h"
#include "symbol/symbolizer.h"
#include "util/fs.h"

namespace sonde {
namespace {

using test::TempDir;

// Binaries every Debian machine with the suite's packages has: an
// executable with .dynsym only, libc, a library with a full .symtab (the
// test binary itself), and ld.so (untyped labels).
std::vector<std::string> binaries() {
  std::vector<std::string> out;
  for (std::string p : {"/usr/bin/xz", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                        "/proc/self/exe"}) {
    std::error_code ec;
    auto real = std::filesystem::canonical(p, ec);
    if (!ec) out.push_back(real.string());
  }
  return out;
}

// The table as the ELF path builds it (what elf_source.cpp built before the
// index existed: the file's own tables with PLT slots).
struct ElfTable {
  std::unique_ptr<ElfFile> file;
  SymbolTable table;
};

ElfTable elf_table(const std::string& path) {
  ElfTable t;
  std::string why;
  t.file = ElfFile::open(path, &why);
  EXPECT_TRUE(t.file) << path << ": " << why;
  if (t.file) t.table.add_elf(*t.file, true);
  t.table.finalize();
  return t;
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Addresses worth asking about each symbol: its first and last byte, its
// middle, and the bytes just outside it.
std::vector<uint64_t> probes(const TableSymbol& s) {
  return {s.addr, s.addr + s.size / 2, s.addr + s.size - 1, s.addr + s.size, s.addr - 1};
}

TEST(SymbolIndex, GivesTheElfTablesSymbolForEveryAddressOfRealBinaries) {
  for (const std::string& bin : binaries()) {
    ElfTable t = elf_table(bin);
    ASSERT_FALSE(t.table.empty()) << bin;
    SymbolIndexKey key{t.file->build_id(), 0};
    const std::string bytes = encode_symbol_index(t.table, key);
    std::string why;
    auto index = SymbolIndex::open(as_bytes(bytes), key, &why);
    ASSERT_TRUE(index) << bin << ": " << why;
    ASSERT_EQ(index->size(), t.table.size()) << bin;
    size_t checked = 0;
    for (const TableSymbol& s : t.table.symbols()) {
      for (uint64_t a : probes(s)) {
        const TableSymbol* want = t.table.find(a);
        const size_t got = index->find(a);
        ASSERT_EQ(got == SymbolIndex::kNone, want == nullptr) << bin << " 0x" << std::hex << a;
        if (!want) continue;
        ASSERT_EQ(index->addr(got), want->addr) << bin << " 0x" << std::hex << a;
        ASSERT_EQ(index->size(got), want->size) << bin;
        ASSERT_EQ(index->name(got), want->name) << bin;
        ++checked;
      }
    }
    EXPECT_GT(checked, t.table.size()) << bin;
  }
}

// The Symbolizer's answers, by file offset, with a fresh cache (the index is
// built and written) and again (the index is mapped), against the ELF table.
TEST(SymbolIndex, TheSymbolizerAnswersAlikeFromTheElfFilesAndFromTheCachedIndex) {
  TempDir t;
  for (const std::string& bin : binaries()) {
    if (bin.find("/proc/") != std::string::npos || bin.rfind("/usr/", 0) != 0) continue;
    ElfTable ref = elf_table(bin);
    for (int run = 0; run < 2; ++run) {
      SymbolizerOptions o;
      o.cache_root = t / "cache";
      o.debug_roots = {t / "no-debug"};
      o.use_debuginfod = false;
      Symbolizer s(o);
      ObjectHandle h = s.object(ref.file->build_id(), bin);
      ASSERT_EQ(s.info(h).reason, Reason::kNone) << bin << ": " << s.info(h).note;
      ASSERT_EQ(s.info(h).symbol_count, ref.table.size()) << bin;
      for (const TableSymbol& sym : ref.table.symbols()) {
        auto off = ref.file->vaddr_to_offset(sym.addr + sym.size / 2);
        if (!off) continue;
        ResolvedSymbol r = s.lookup(h, *off);
        ASSERT_TRUE(r.resolved()) << bin << " " << sym.name;
        EXPECT_EQ(r.raw_name, sym.name) << bin << " run " << run;
        EXPECT_EQ(r.symbol_addr, sym.addr);
        EXPECT_EQ(r.symbol_size, sym.size);
      }
      EXPECT_TRUE(std::filesystem::exists(symbol_index_path(BuildIdCache(o.cache_root), ref.file->build_id())))
          << bin << ": no index written";
    }
  }
}

// A valid index to damage.
struct Sample {
  std::string bytes;
  SymbolIndexKey key;
};

Sample sample_index() {
  SymbolTable table;
  table.add_owned(0x1000, 0x20, "first");
  table.add_owned(0x1040, 0x10, "second");
  table.add_owned(0x2000, 0, "last");
  table.finalize();
  Sample s;
  s.key.build_id = *BuildId::from_hex("00112233445566778899aabbccddeeff00112233");
  s.bytes = encode_symbol_index(table, s.key);
  return s;
}

std::string rejection(const std::string& bytes, const SymbolIndexKey& key) {
  std::string why;
  auto index = SymbolIndex::open(as_bytes(bytes), key, &why);
  return index ? "accepted" : why;
}

template <typename T>
void poke(std::string& bytes, size_t at, T v) {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}

TEST(SymbolIndex, RejectsTruncatedForeignAndHostileIndexes) {
  const Sample s = sample_index();
  ASSERT_EQ(rejection(s.bytes, s.key), "accepted");
  EXPECT_EQ(rejection(s.bytes.substr(0, 40), s.key), "shorter than its header");
  EXPECT_EQ(rejection(s.bytes.substr(0, s.bytes.size() - 1), s.key), "truncated or extended");
  EXPECT_EQ(rejection(s.bytes + "x", s.key), "truncated or extended");
  std::string b = s.bytes;
  b[0] = 'X';
  EXPECT_EQ(rejection(b, s.key), "not a symbol index");
  b = s.bytes;
  poke<uint32_t>(b, 8, 2);
  EXPECT_EQ(rejection(b, s.key), "another version of the symbol index");
  SymbolIndexKey other = s.key;
  other.build_id.bytes[0] ^= 1;
  EXPECT_EQ(rejection(s.bytes, other), "made for another build-id");
  other = s.key;
  other.sources = kIndexFromDebugFile;
  EXPECT_EQ(rejection(s.bytes, other), "made from other debug files");
  b = s.bytes;
  poke<uint8_t>(b, 16, 200);
  EXPECT_EQ(rejection(b, s.key), "made for another build-id");
  b = s.bytes;
  poke<uint64_t>(b, 40, uint64_t{1} << 60);  // count
  EXPECT_EQ(rejection(b, s.key), "symbol count larger than the file");
  b = s.bytes;
  poke<uint64_t>(b, 40, 2);  // count smaller: the rest would be strings
  EXPECT_EQ(rejection(b, s.key), "size does not match its counts");
  b = s.bytes;
  poke<uint64_t>(b, 64 + 8, 0x900);  // the second address before the first
  EXPECT_EQ(rejection(b, s.key), "addresses out of order");
  b = s.bytes;
  poke<uint32_t>(b, 64 + 3 * 16 + 8, 0xfffffff0);  // the second name's offset
  EXPECT_EQ(rejection(b, s.key), "a name past the string table");
  b = s.bytes;
  poke<uint32_t>(b, 64 + 3 * 16 + 4, 0xffffffff);  // the first name's length
  EXPECT_EQ(rejection(b, s.key), "a name past the string table");
}

TEST(SymbolIndex, LooksUpInsideSymbolsOnly) {
  const Sample s = sample_index();
  auto index = SymbolIndex::open(as_bytes(s.bytes), s.key, nullptr);
  ASSERT_TRUE(index);
  EXPECT_EQ(index->find(0xfff), SymbolIndex::kNone);
  EXPECT_EQ(index->name(index->find(0x1000)), "first");
  EXPECT_EQ(index->name(index->find(0x101f)), "first");
  EXPECT_EQ(index->find(0x1020), SymbolIndex::kNone);
  EXPECT_EQ(index->name(index->find(0x104f)), "second");
  EXPECT_EQ(index->size(index->find(0x2000)), 4096u);  // the last gap, as finalize() gives it
  EXPECT_EQ(index->find(0x3000), SymbolIndex::kNone);
}

// The xz binary's index in a cache, replaced by each kind of bad file: the
// Symbolizer ignores it, answers from the ELF files and writes a valid one.
TEST(SymbolIndex, ABadIndexInTheCacheIsIgnoredAndRewritten) {
  const std::string bin = "/usr/bin/xz";
  ElfTable ref = elf_table(bin);
  TempDir t;
  SymbolizerOptions o;
  o.cache_root = t / "cache";
  o.debug_roots = {t / "no-debug"};
  const BuildId id = ref.file->build_id();
  auto lookup_middle = [&] {
    Symbolizer s(o);
    ObjectHandle h = s.object(id, bin);
    const TableSymbol& sym = ref.table.symbols()[ref.table.size() / 2];
    return std::string(s.lookup(h, *ref.file->vaddr_to_offset(sym.addr)).raw_name);
  };
  const std::string want(ref.table.symbols()[ref.table.size() / 2].name);
  ASSERT_EQ(lookup_middle(), want);
  const std::string path = symbol_index_path(BuildIdCache(o.cache_root), id);
  ASSERT_FALSE(path.empty());
  const auto good = read_small_file(path);
  ASSERT_TRUE(good);
  std::vector<std::string> bad = {good->substr(0, good->size() / 2), std::string(100, '\xff'), "",
                                  [&] { std::string b = *good; b[8] = 9; return b; }(),
                                  [&] { std::string b = *good; std::memset(b.data() + 64 + 8, 0, 8); return b; }()};
  for (size_t i = 0; i < bad.size(); ++i) {
    write_file_atomic(path, bad[i]);
    EXPECT_EQ(lookup_middle(), want) << "bad index " << i;
    EXPECT_EQ(read_small_file(path), good) << "bad index " << i << " not rewritten";
  }
}

// Threads, each with its own Symbolizer, index the same objects into one
// fresh cache at once: every one answers, and the file left is valid.
TEST(SymbolIndex, TwoWritersAtOnceLeaveOneValidIndex) {
  const std::string bin = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  ElfTable ref = elf_table(std::filesystem::canonical(bin).string());
  TempDir t;
  for (int round = 0; round < 5; ++round) {
    SymbolizerOptions o;
    o.cache_root = t / ("cache" + std::to_string(round));
    o.debug_roots = {t / "no-debug"};
    std::vector<size_t> counts(2);
    std::vector<std::thread> threads;
    for (size_t w = 0; w < counts.size(); ++w)
      threads.emplace_back([&, w] {
        Symbolizer s(o);
        counts[w] = s.info(s.object(ref.file->build_id(), ref.file->path())).symbol_count;
      });
    for (auto& th : threads) th.join();
    EXPECT_EQ(counts[0], ref.table.size());
    EXPECT_EQ(counts[1], ref.table.size());
    const BuildIdCache cache(o.cache_root);
    std::string why;
    EXPECT_TRUE(load_symbol_index(cache, {ref.file->build_id(), 0}, &why)) << why;
    for (const auto& e : std::filesystem::directory_iterator(
             std::filesystem::path(symbol_index_path(cache, ref.file->build_id())).parent_path()))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
}

TEST(SymbolIndex, RemovingTheCacheEntryRemovesItsIndex) {
  TempDir t;
  BuildIdCache cache(t / "cache");
  auto entry = cache.add("/usr/bin/xz");
  SymbolizerOptions o;
  o.cache_root = cache.root();
  {
    Symbolizer s(o);
    s.object(entry.build_id, "/usr/bin/xz");
  }
  const std::string path = symbol_index_path(cache, entry.build_id);
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_TRUE(cache.remove(entry.build_id));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace sonde
