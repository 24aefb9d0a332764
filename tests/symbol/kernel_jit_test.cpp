// Kernel symbols from /proc/kallsyms (this host) and JIT symbols from
// perf-PID.map files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cache/buildid_cache.h"
#include "elf/build_id.h"
#include "symbol/fixture_util.h"
#include "symbol/symbolizer.h"

namespace sonde {
namespace {

using test::TempDir;

TEST(KernelSymbols, ResolveFromKallsymsOnThisHost) {
  // A text symbol and the next one, straight from kallsyms.
  auto r = test::sh("awk '$2==\"T\" && $3==\"schedule\" {print $1}' /proc/kallsyms | head -1");
  ASSERT_FALSE(r.out.empty()) << "no schedule in /proc/kallsyms";
  uint64_t addr = std::stoull(r.out, nullptr, 16);
  ASSERT_NE(addr, 0u) << "kallsyms addresses are hidden (kptr_restrict)";
  auto running = read_build_id_from_notes_file("/sys/kernel/notes");
  ASSERT_TRUE(running);

  SymbolizerOptions o;
  o.use_cache = false;
  Symbolizer s(o);
  ObjectHandle h = s.kernel(*running);
  EXPECT_EQ(s.info(h).kind, ObjectKind::kKernel);
  EXPECT_EQ(s.info(h).source, "kallsyms");
  ResolvedSymbol k = s.lookup(h, addr + 8);
  EXPECT_EQ(k.name, "schedule");
  EXPECT_EQ(k.offset, 8u);
  EXPECT_EQ(k.dso, "[kernel.kallsyms]");
  // The mapping name used in perf.data leads to the same object.
  EXPECT_EQ(s.object(*running, "[kernel.kallsyms]_text"), h);

  // Module symbols carry their module as dso (when any module is loaded).
  auto m = test::sh("awk '$2==\"t\" && $4 ~ /^\\[/ {print $1, $3, $4; exit}' /proc/kallsyms");
  if (!m.out.empty()) {
    std::istringstream in(m.out);
    std::string a, name, mod;
    in >> a >> name >> mod;
    ResolvedSymbol ms = s.lookup(h, std::stoull(a, nullptr, 16));
    EXPECT_EQ(ms.name, name);
    EXPECT_EQ(ms.dso, mod);
  }

  // A recording from another kernel is not symbolized with this one.
  ObjectHandle other = s.kernel(*BuildId::from_hex("0123456789abcdef0123456789abcdef01234567"));
  ResolvedSymbol x = s.lookup(other, addr + 8);
  EXPECT_EQ(x.reason, Reason::kBuildIdMismatch);
  EXPECT_TRUE(x.name.empty());
}

TEST(KernelSymbols, AnotherKernelResolvesFromItsCachedKallsyms) {
  auto r = test::sh("awk '$2==\"T\" && $3==\"schedule\" {print $1}' /proc/kallsyms | head -1");
  ASSERT_FALSE(r.out.empty());
  uint64_t addr = std::stoull(r.out, nullptr, 16);
  TempDir t;
  BuildId other = *BuildId::from_hex("0123456789abcdef0123456789abcdef01234567");
  BuildIdCache cache(t / "cache");
  auto e = cache.add_kallsyms(other, "/proc/kallsyms");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dir, t / "cache/[kernel.kallsyms]/" + other.hex());
  // perf's layout: the link points at ../../[kernel.kallsyms]/ID.
  EXPECT_EQ(std::filesystem::read_symlink(t / "cache/.build-id/01/23456789abcdef0123456789abcdef01234567").string(),
            "../../[kernel.kallsyms]/" + other.hex());
  SymbolizerOptions o;
  o.cache_root = t / "cache";
  Symbolizer s(o);
  ObjectHandle h = s.kernel(other);
  EXPECT_EQ(s.info(h).source, "cache");
  EXPECT_EQ(s.lookup(h, addr + 3).name, "schedule");
}

TEST(KernelSymbols, FirstReadOfProcKallsymsResolvesWhetherOrNotTheCacheCopyIsWritten) {
  // The names of a first read are left in the cache copy just written, or
  // copied out of the text when the copy cannot be written.
  auto r = test::sh("awk '$2==\"T\" && $3==\"schedule\" {print $1}' /proc/kallsyms | head -1");
  ASSERT_FALSE(r.out.empty());
  uint64_t addr = std::stoull(r.out, nullptr, 16);
  auto running = read_build_id_from_notes_file("/sys/kernel/notes");
  ASSERT_TRUE(running);
  TempDir t;
  std::ofstream(t / "not-a-dir") << "x";
  for (std::string root : {t / "cache", t / "not-a-dir"}) {
    SymbolizerOptions o;
    o.cache_root = root;
    Symbolizer s(o);
    ObjectHandle h = s.kernel(*running);
    EXPECT_EQ(s.info(h).source, "kallsyms") << root;
    EXPECT_EQ(s.lookup(h, addr + 8).name, "schedule") << root;
    EXPECT_EQ(s.lookup(h, addr + 8).offset, 8u) << root;
  }
  EXPECT_TRUE(std::filesystem::exists(t / ("cache/[kernel.kallsyms]/" + running->hex() + "/kallsyms")));
}

TEST(KernelSymbols, MalformedAndUnsortedCachedKallsymsAreSkippedNotFatal) {
  // A cached kallsyms is untrusted input: bad lines are skipped, module lines
  // may come out of address order, and the last alias of an address wins.
  std::string text =
      "ffffffff81000000 T _stext\n"
      "ffffffff81000000 T startup_64\n"
      "ffffffff81000100 t second\n"
      "garbage\n"
      "ffffffff81000200\n"
      "zzzz T bad_hex\n"
      "ffffffff81000300 TT bad_type\n"
      "ffffffff81000400 D data_symbol\n"
      "ffffffffc0001000 t mod_b_fn\t[mod_b]\n"
      "ffffffffc0000000 t mod_a_fn\t[mod_a]\n" +
      std::string(300000, 'x') + "\n" +  // longer than the read buffer
      "ffffffff81000500 W weak_one\n" + std::string("ffffffff81000600 T nul\0name\n", 28) +
      "ffffffffc0002000 t last_fn [mod_b]";  // no final newline
  TempDir t;
  BuildId other = *BuildId::from_hex("0123456789abcdef0123456789abcdef01234567");
  BuildIdCache cache(t / "cache");
  cache.add_kallsyms_text(other, text);
  SymbolizerOptions o;
  o.cache_root = t / "cache";
  Symbolizer s(o);
  ObjectHandle h = s.kernel(other);
  ASSERT_EQ(s.info(h).source, "cache");
  EXPECT_EQ(s.info(h).symbol_count, 6u);
  ResolvedSymbol a = s.lookup(h, 0xffffffff81000010);
  EXPECT_EQ(a.name, "startup_64");
  EXPECT_EQ(a.offset, 0x10u);
  EXPECT_EQ(a.symbol_size, 0x100u);
  EXPECT_EQ(s.lookup(h, 0xffffffff81000450).name, "second");  // data symbols are not text
  EXPECT_EQ(s.lookup(h, 0xffffffff81000600).name, "weak_one");
  EXPECT_EQ(s.lookup(h, 0xffffffff81000600).dso, "[kernel.kallsyms]");
  ResolvedSymbol ma = s.lookup(h, 0xffffffffc0000010);
  EXPECT_EQ(ma.name, "mod_a_fn");
  EXPECT_EQ(ma.dso, "[mod_a]");
  EXPECT_EQ(s.lookup(h, 0xffffffffc0001010).name, "mod_b_fn");
  EXPECT_EQ(s.lookup(h, 0xffffffffc0001010).dso, "[mod_b]");
  ResolvedSymbol last = s.lookup(h, 0xffffffffc0002004);
  EXPECT_EQ(last.name, "last_fn");
  EXPECT_EQ(last.dso, "[mod_b]");
  EXPECT_EQ(s.lookup(h, 0xffffffff80000000).reason, Reason::kUnknown);
}

TEST(KernelSymbols, AddressesSpanningMoreThan4GiBStillResolve) {
  // The table stores 32-bit offsets only when every address fits; this one
  // does not.
  TempDir t;
  BuildId other = *BuildId::from_hex("89abcdef0123456789abcdef0123456789abcdef");
  BuildIdCache cache(t / "cache");
  cache.add_kallsyms_text(other, "0000000000001000 T low_one\nffffffff81000000 T high_one\n");
  SymbolizerOptions o;
  o.cache_root = t / "cache";
  // Twice: from the text, then from the index the first run left (8-byte keys).
  for (int run = 0; run < 2; ++run) {
    Symbolizer s(o);
    ObjectHandle h = s.kernel(other);
    EXPECT_EQ(s.info(h).symbol_file.ends_with(run == 0 ? "/kallsyms" : "/sonde-kallsyms.idx"), true) << s.info(h).symbol_file;
    EXPECT_EQ(s.lookup(h, 0x1010).name, "low_one");
    EXPECT_EQ(s.lookup(h, 0x200000).reason, Reason::kUnknown);  // past low_one's 1 MiB cap
    EXPECT_EQ(s.lookup(h, 0xffffffff81000010).name, "high_one");
    EXPECT_EQ(s.lookup(h, 0xffffffff81000010).offset, 0x10u);
    EXPECT_EQ(s.lookup(h, 0x10).reason, Reason::kUnknown);
  }
}

TEST(JitSymbols, ResolveFromPerfMap) {
  TempDir t;
  std::ofstream(t / "perf-4242.map") << "7f0000001000 100 jit_one\n"
                                      << "0x7f0000001100 80 LazyCompile:*hot_loop app.js:12\n"
                                      << "garbage line\n";
  SymbolizerOptions o;
  o.use_cache = false;
  o.perf_map_dir = t.path();
  Symbolizer s(o);
  ObjectHandle h = s.object(BuildId{}, "//anon", 4242);
  EXPECT_EQ(s.info(h).kind, ObjectKind::kPerfMap);
  EXPECT_EQ(s.lookup(h, 0x7f0000001010).name, "jit_one");
  ResolvedSymbol r = s.lookup(h, 0x7f0000001120);
  EXPECT_EQ(r.name, "LazyCompile:*hot_loop app.js:12");
  EXPECT_EQ(r.offset, 0x20u);
  EXPECT_EQ(s.lookup(h, 0x7f0000001180).reason, Reason::kUnknown);
  EXPECT_EQ(s.lookup(s.object(BuildId{}, "//anon", 4343), 0x7f0000001010).reason, Reason::kNotFound);
}

}  // namespace
}  // namespace sonde
