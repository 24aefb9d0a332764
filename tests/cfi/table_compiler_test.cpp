// The table compiler against libdw itself: for addresses sampled across
// Debian's /usr/bin/xz and libc, the row the BPF program would find must
// give the rule libdw gives for that address (CFA register and offset,
// return address at CFA-8, where rbp is saved), read from libdw's own
// operations here rather than through the compiler's.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cfi/eh_frame_hdr.h"
#include "cfi/table_compiler.h"
#include "cfi/table_store.h"
#include "elf/vdso.h"
#include "elf/elf_file.h"

namespace sonde::cfi {
namespace {

// The rule libdw gives at `addr`, or nullopt where no FDE covers it.
std::optional<Rule> libdw_rule(Dwarf_CFI* cfi, uint64_t addr) {
  Dwarf_Frame* f = nullptr;
  if (dwarf_cfi_addrframe(cfi, addr, &f) != 0) return std::nullopt;
  Rule r;
  Dwarf_Addr lo = 0, hi = 0;
  bool signal = false;
  if (dwarf_frame_info(f, &lo, &hi, &signal) >= 0 && signal) {  // the walker reads the saved context
    std::free(f);
    return Rule{SONDE_CFA_SIGNAL};
  }
  Dwarf_Op mem[3];
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  dwarf_frame_register(f, 16, mem, &ops, &n);
  bool ra_undefined = n == 0 && ops == mem;
  bool ra_at_cfa_minus_8 = n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst &&
                           static_cast<int64_t>(ops[1].number) == -8;
  Dwarf_Op* cfa = nullptr;
  size_t ncfa = 0;
  dwarf_frame_cfa(f, &cfa, &ncfa);
  if (ra_undefined) {
    r.cfa = SONDE_CFA_END;
  } else if (ncfa == 1 && cfa[0].atom == DW_OP_bregx && (cfa[0].number == 7 || cfa[0].number == 6) &&
             ra_at_cfa_minus_8) {
    r.cfa = cfa[0].number == 7 ? SONDE_CFA_RSP : SONDE_CFA_RBP;
    r.offset = static_cast<uint32_t>(cfa[0].number2);
    dwarf_frame_register(f, 6, mem, &ops, &n);
    if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
      r.rbp = SONDE_RBP_SAVED;
      r.rbp_slot = static_cast<uint32_t>(-static_cast<int64_t>(ops[1].number) / 8);
    }
  } else if (ncfa == 9 && cfa[0].atom == DW_OP_breg7) {
    r.cfa = SONDE_CFA_PLT;
    r.offset = cfa[4].atom - DW_OP_lit0;
  } else {
    r.cfa = SONDE_CFA_UNSUPPORTED;
  }
  // Beyond a row's offset field: counted as unsupported.
  if ((r.cfa == SONDE_CFA_RSP || r.cfa == SONDE_CFA_RBP) && r.offset > 0xffff) r = Rule{SONDE_CFA_UNSUPPORTED};
  std::free(f);
  return r;
}

struct Agreement {
  size_t sampled = 0, covered = 0, unsupported = 0, mismatches = 0;
  std::string first_mismatch;
};

Agreement compare_with_libdw(const ElfFile* elf, const std::string& path, const std::string& why);

Agreement compare_with_libdw(const std::string& path) {
  std::string why;
  auto elf = ElfFile::open(path, &why);
  return compare_with_libdw(elf.get(), path, why);
}

Agreement compare_with_libdw(const ElfFile* elf, const std::string& path, const std::string& opened) {
  Agreement a;
  std::string why = opened;
  if (!elf) {
    ADD_FAILURE() << path << ": " << why;
    return a;
  }
  auto table = compile_table(*elf, &why);
  if (!table) {
    ADD_FAILURE() << path << ": " << why;
    return a;
  }
  Dwarf_CFI* cfi = dwarf_getcfi_elf(elf->elf());
  uint64_t end = table->base + SONDE_ROW_PC(table->rows.back()) + 64;
  for (uint64_t addr = table->base; addr < end; addr += 7) {
    ++a.sampled;
    auto want = libdw_rule(cfi, addr);
    Rule got = table->rule_at(addr);
    Rule expected = want ? *want : Rule{};
    if (want) ++a.covered;
    if (want && want->cfa == SONDE_CFA_UNSUPPORTED) ++a.unsupported;
    if (got == expected) continue;
    if (a.mismatches++ == 0)
      a.first_mismatch = fmt::format("{} at {:#x}: cfa {} vs {}, offset {} vs {}, rbp slot {} vs {}", path, addr, got.cfa,
                                     expected.cfa, got.offset, expected.offset, got.rbp_slot, expected.rbp_slot);
  }
  dwarf_cfi_end(cfi);
  return a;
}

TEST(CfiTableCompiler, AgreesWithLibdwOnXz) {
  Agreement a = compare_with_libdw("/usr/bin/xz");
  EXPECT_EQ(a.mismatches, 0u) << a.first_mismatch;
  EXPECT_GT(a.covered, 5000u);
  EXPECT_LT(a.unsupported * 100, a.covered);  // Debian's xz: (almost) every range is rsp/rbp-based
}

TEST(CfiTableCompiler, AgreesWithLibdwOnLibc) {
  Agreement a = compare_with_libdw("/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(a.mismatches, 0u) << a.first_mismatch;
  EXPECT_GT(a.covered, 100000u);
  EXPECT_LT(a.unsupported * 100, a.covered);
}

// A large non-PIE executable (ET_EXEC at 0x400000) with .cold parts.
TEST(CfiTableCompiler, AgreesWithLibdwOnPython) {
  Agreement a = compare_with_libdw("/usr/bin/python3.11");
  EXPECT_EQ(a.mismatches, 0u) << a.first_mismatch;
  EXPECT_GT(a.covered, 100000u);
}

// The vdso's own .eh_frame, compiled from this process's image in memory
// (the recorder's source for every process's [vdso]).
TEST(CfiTableCompiler, AgreesWithLibdwOnTheVdso) {
  std::span<const uint8_t> own = own_vdso();
  ASSERT_FALSE(own.empty()) << "no [vdso] in /proc/self/maps";
  std::string why;
  auto elf = ElfFile::from_memory({own.begin(), own.end()}, "[vdso]", &why);
  Agreement a = compare_with_libdw(elf.get(), "[vdso]", why);
  EXPECT_EQ(a.mismatches, 0u) << a.first_mismatch;
  EXPECT_GT(a.covered, 20u);
}

// A process's [vdso] mapping gets that table (it used to be left to the
// frame-pointer walk), placed at the mapping.
TEST(CfiTableStore, TheVdsoMappingGetsTheVdsosTable) {
  size_t loaded_rows = 0;
  TableStore store([&](uint32_t, const sonde_cfi_table&, std::span<const uint64_t> rows) {
    loaded_rows += rows.size();
    return true;
  }, 64, 1 << 22);
  auto p = process_mappings(::getpid(), store);
  ASSERT_TRUE(p.has_value());
  const auto start = reinterpret_cast<uint64_t>(own_vdso().data());
  auto image = ElfFile::from_memory({own_vdso().begin(), own_vdso().end()}, "[vdso]", nullptr);
  ASSERT_TRUE(image && !image->load_segments().empty());
  const uint64_t link = image->load_segments().front().vaddr;  // mapped from offset 0
  bool found = false;
  for (uint32_t i = 0; i < p->count; ++i)
    if (p->m[i].start == start) {
      found = true;
      EXPECT_NE(p->m[i].table, SONDE_CFI_NO_TABLE);
      EXPECT_EQ(p->m[i].bias, start - link) << "placed where the kernel mapped the image";
    }
  EXPECT_TRUE(found) << "no mapping at the vdso's address";
  EXPECT_GT(loaded_rows, 0u);
  EXPECT_EQ(&store.vdso(own_vdso().size()), &store.vdso(own_vdso().size())) << "compiled once";
  EXPECT_EQ(store.vdso(own_vdso().size() + 4096).table, SONDE_CFI_NO_TABLE) << "another ABI's image";
}

TEST(CfiTableCompiler, FindsThePltAndTheOutermostFrame) {
  std::string why;
  auto elf = ElfFile::open("/usr/bin/xz", &why);
  ASSERT_TRUE(elf) << why;
  auto table = compile_table(*elf, &why);
  ASSERT_TRUE(table) << why;
  EXPECT_GT(table->stats.plt, 0u);
  EXPECT_GT(table->stats.fdes, 100u);
  bool end = false;
  for (uint64_t row : table->rows) end |= SONDE_ROW_CFA(row) == SONDE_CFA_END;
  EXPECT_TRUE(end) << "_start's undefined return address";
  // At most a row per range and one per gap after an FDE (neighbours with
  // the same rule merged).
  EXPECT_LE(table->rows.size(), table->stats.ranges + table->stats.fdes);
}

TEST(CfiTableCompiler, RefusesAnObjectWithoutEhFrameHdr) {
  std::string why;
  auto elf = ElfFile::open("/usr/lib/x86_64-linux-gnu/crti.o", &why);  // not linked: no header
  ASSERT_TRUE(elf) << why;
  EXPECT_FALSE(compile_table(*elf, &why));
  EXPECT_EQ(why, "no .eh_frame_hdr");
}

// .eh_frame_hdr: version 1, eh_frame_ptr pcrel|sdata4, count udata4, table datarel|sdata4.
std::vector<uint8_t> header(uint32_t count, std::vector<int32_t> pairs) {
  std::vector<uint8_t> b = {1, 0x1b, 0x03, 0x3b, 0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(count >> (8 * i)));
  for (int32_t v : pairs)
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * i)));
  return b;
}

TEST(EhFrameHdr, ListsSortedDataRelativeStarts) {
  std::string why;
  auto s = fde_starts(header(2, {0x200, 0x40, -0x100, 0x50}), 0x10000, &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(*s, (std::vector<uint64_t>{0x10000 - 0x100, 0x10200}));
}

TEST(EhFrameHdr, RefusesBadHeaders) {
  std::string why;
  EXPECT_FALSE(fde_starts(header(3, {0x200, 0x40}), 0x1000, &why));
  EXPECT_EQ(why, ".eh_frame_hdr: the FDE count exceeds the section");
  auto bad_version = header(0, {});
  bad_version[0] = 2;
  EXPECT_FALSE(fde_starts(bad_version, 0x1000, &why));
  EXPECT_EQ(why, "unknown .eh_frame_hdr version");
  EXPECT_FALSE(fde_starts(std::vector<uint8_t>{1, 0x1b}, 0x1000, &why));
  EXPECT_EQ(why, ".eh_frame_hdr is truncated");
  auto bad_enc = header(1, {0, 0});
  bad_enc[3] = 0x0f;
  EXPECT_FALSE(fde_starts(bad_enc, 0x1000, &why));
  EXPECT_EQ(why, ".eh_frame_hdr: unsupported table encoding");
}

}  // namespace
}  // namespace sonde::cfi
