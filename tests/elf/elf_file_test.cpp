// ElfFile and SymbolTable against binutils' view of the same fixtures.
#include "elf/elf_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "elf/dwarf_info.h"
#include "symbol/symbolizer.h"

#include "elf/symbol_table.h"
#include "symbol/fixture_util.h"

namespace sonde {
namespace {

using test::TempDir;

TEST(ElfFile, BuildIdSegmentsAndSymbolsMatchBinutils) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::string why;
  auto f = ElfFile::open(bin, &why);
  ASSERT_TRUE(f) << why;
  EXPECT_EQ(f->build_id().hex(), test::build_id_of(bin));
  EXPECT_TRUE(f->has_symtab());
  EXPECT_TRUE(f->has_dwarf());
  auto nm = test::nm_symbols(bin);
  SymbolTable tab;
  tab.add_elf(*f);
  tab.finalize();
  size_t funcs = 0;
  for (const auto& [name, s] : nm) {
    if (s.type != 'T' && s.type != 't') continue;
    if (s.size == 0) continue;  // labels like _init come without sizes
    ++funcs;
    const TableSymbol* ts = tab.find(s.addr);
    ASSERT_TRUE(ts) << name;
    EXPECT_EQ(ts->addr, s.addr) << name;
    EXPECT_EQ(ts->size, s.size) << name;
    // Offset <-> vaddr agrees with readelf's PT_LOAD table.
    uint64_t off = test::file_offset_of(bin, s.addr);
    EXPECT_EQ(f->vaddr_to_offset(s.addr).value_or(0), off) << name;
    EXPECT_EQ(f->offset_to_vaddr(off).value_or(0), s.addr) << name;
  }
  EXPECT_GE(funcs, 4u);
  // The symbol table is sorted and non-overlapping.
  auto syms = tab.symbols();
  for (size_t i = 1; i < syms.size(); ++i) EXPECT_LE(syms[i - 1].addr + syms[i - 1].size, syms[i].addr);
  EXPECT_FALSE(f->offset_to_vaddr(uint64_t{1} << 40));
}

TEST(ElfFile, DebuglinkAndItsCrc) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto r = test::sh("cd '" + t.path() + "' && objcopy --only-keep-debug fx fx.debug && objcopy --add-gnu-debuglink=fx.debug fx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = ElfFile::open(bin, nullptr);
  ASSERT_TRUE(f);
  auto dl = f->debuglink();
  ASSERT_TRUE(dl);
  EXPECT_EQ(dl->name, "fx.debug");
  EXPECT_EQ(debuglink_crc32(t / "fx.debug").value_or(0), dl->crc);
  // The debug file keeps the build-id and the program headers.
  auto d = ElfFile::open(t / "fx.debug", nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->build_id(), f->build_id());
  EXPECT_EQ(d->load_segments().size(), f->load_segments().size());
}

TEST(ElfFile, MiniDebugInfoDecompresses) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  ASSERT_TRUE(test::add_minidebuginfo(bin, t.path()));
  auto f = ElfFile::open(bin, nullptr);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->has_symtab());
  std::string why;
  auto mini = f->open_minidebuginfo(&why);
  ASSERT_TRUE(mini) << why;
  EXPECT_TRUE(mini->has_symtab());
  SymbolTable tab;
  tab.add_elf(*mini, false);
  tab.finalize();
  bool found = false;
  for (const auto& s : tab.symbols()) found |= s.name == "sym_local_gamma";
  EXPECT_TRUE(found);
}

TEST(ElfFile, CorruptInputFailsWithAReason) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::string why;
  EXPECT_FALSE(ElfFile::open(t / "missing", &why));
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  std::ofstream(t / "text") << "not an elf";
  EXPECT_FALSE(ElfFile::open(t / "text", &why));
  EXPECT_NE(why.find("not an ELF"), std::string::npos) << why;
  // Truncations of a real binary at many lengths: never a crash; whatever
  // opens must answer queries safely.
  for (size_t len : {4, 16, 64, 200, 1000, 4096, 9000}) {
    std::string p = t / ("trunc" + std::to_string(len));
    test::sh("head -c " + std::to_string(len) + " '" + bin + "' > '" + p + "'");
    auto f = ElfFile::open(p, &why);
    if (!f) continue;
    SymbolTable tab;
    tab.add_elf(*f);
    tab.finalize();
    (void)f->debuglink();
    (void)f->open_minidebuginfo(&why);
    (void)f->offset_to_vaddr(0x1000);
  }
  // A corrupt .gnu_debugdata payload is a reason, not a crash.
  test::sh("cd '" + t.path() + "' && head -c 300 /dev/urandom > junk.xz && objcopy --add-section .gnu_debugdata=junk.xz fx");
  auto f = ElfFile::open(bin, nullptr);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->open_minidebuginfo(&why));
  EXPECT_NE(why.find("corrupt .gnu_debugdata"), std::string::npos) << why;
}

TEST(ElfFile, MutatedCopiesNeverCrash) {
  TempDir t;
  // A binary with DWARF, and a stripped one with MiniDebugInfo (the xz path).
  std::string full = t / "full", mini = t / "mini";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", full));
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", mini));
  ASSERT_TRUE(test::add_minidebuginfo(mini, t.path()));
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::vector<char> originals[2] = {slurp(full), slurp(mini)};
  ASSERT_GT(originals[1].size(), 8192u);
  std::mt19937 rng(1234);
  SymbolizerOptions o;
  o.use_cache = false;
  o.use_debuginfod = false;
  o.debug_roots = {};
  std::vector<InlineFrame> frames;
  for (int round = 0; round < 300; ++round) {
    std::vector<char> m = originals[round % 2];
    // Mostly the headers and tables at both ends, where lengths and offsets live.
    for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) {
      size_t pos = rng() % 2 ? rng() % 4096 : m.size() - 1 - rng() % 4096;
      m[pos] = static_cast<char>(rng());
    }
    std::string p = t / "mutant";
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(m.data(), static_cast<std::streamsize>(m.size()));
    std::string why;
    if (auto f = ElfFile::open(p, &why)) {
      SymbolTable tab;
      tab.add_elf(*f);
      tab.finalize();
      (void)f->debuglink();
      if (auto mini = f->open_minidebuginfo(&why)) {
        SymbolTable mt;
        mt.add_elf(*mini, false);
      }
      if (auto d = DwarfInfo::open(*f, &why)) {
        (void)d->line(0x1190);
        d->inline_frames(0x1190, frames);
      }
    }
    // The whole symbolizer path with an unverified (empty) build-id.
    Symbolizer s(o);
    ObjectHandle h = s.object(BuildId{}, p);
    for (uint64_t off : {0x0ul, 0x1000ul, 0x1190ul, 0x11a0ul}) {
      (void)s.lookup(h, off);
      (void)s.srcline(h, off);
      s.inline_frames(h, off, frames);
    }
  }
}

}  // namespace
}  // namespace sonde
