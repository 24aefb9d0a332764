// Symbolizer acceptance tests on fixture binaries: names at known offsets,
// C++ demangling, separate debug files, MiniDebugInfo, build-id mismatch and
// the build-id cache, source lines and inline frames, bad input.
#include "symbol/symbolizer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cache/buildid_cache.h"
#include "elf/build_id.h"
#include "elf/vdso.h"
#include "symbol/fixture_util.h"

namespace sonde {
namespace {

using test::TempDir;

SymbolizerOptions isolated(const TempDir& t) {
  unsetenv("DEBUGINFOD_URLS");
  SymbolizerOptions o;
  o.cache_root = t / "cache";
  o.debug_roots = {t / "no-debug-root"};
  o.use_debuginfod = false;
  return o;
}

BuildId id_of(const std::string& bin) {
  auto id = BuildId::from_hex(test::build_id_of(bin));
  EXPECT_TRUE(id) << bin;
  return id.value_or(BuildId{});
}

uint64_t plt_addr(const std::string& bin, const std::string& name) {
  auto r = test::sh("objdump -d '" + bin + "' | awk '/<" + name + "@plt>:/{print $1}'");
  return r.out.empty() ? 0 : std::stoull(r.out, nullptr, 16);
}

TEST(Symbolizer, NamesKnownFunctionsAtTheirOffsets) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  Symbolizer s(isolated(t));
  ObjectHandle h = s.object(id_of(bin), bin, 0);
  EXPECT_EQ(s.info(h).source, "path");
  EXPECT_EQ(s.info(h).reason, Reason::kNone);
  for (const char* name : {"sym_alpha", "sym_beta", "sym_local_gamma", "main"}) {
    SCOPED_TRACE(name);
    const auto& sym = nm.at(name);
    ASSERT_GT(sym.size, 6u);
    ResolvedSymbol r = s.lookup(h, test::file_offset_of(bin, sym.addr + 5));
    ASSERT_TRUE(r.resolved()) << reason_text(r.reason);
    EXPECT_EQ(r.name, name);
    EXPECT_EQ(r.raw_name, name);
    EXPECT_EQ(r.offset, 5u);
    EXPECT_EQ(r.symbol_addr, sym.addr);
    EXPECT_EQ(r.symbol_size, sym.size);
    EXPECT_EQ(r.dso, bin);
    // First and last byte belong to the function too.
    EXPECT_EQ(s.lookup(h, test::file_offset_of(bin, sym.addr)).offset, 0u);
    EXPECT_EQ(s.lookup(h, test::file_offset_of(bin, sym.addr + sym.size - 1)).name, name);
  }
  // PLT slots are named like perf does.
  uint64_t puts_plt = plt_addr(bin, "puts");
  ASSERT_NE(puts_plt, 0u);
  ResolvedSymbol p = s.lookup(h, test::file_offset_of(bin, puts_plt + 4));
  EXPECT_EQ(p.name, "puts@plt");
  EXPECT_EQ(p.offset, 4u);
  // The ELF header is in a PT_LOAD but in no function: unknown, never a guess.
  ResolvedSymbol hdr = s.lookup(h, 0x10);
  EXPECT_FALSE(hdr.resolved());
  EXPECT_EQ(hdr.reason, Reason::kUnknown);
  EXPECT_TRUE(hdr.name.empty());
  // The same object asked again is the same handle (indexed once).
  EXPECT_EQ(s.object(id_of(bin), bin, 0), h);
}

TEST(Symbolizer, DemanglesCxxNamesUnlessDisabled) {
  TempDir t;
  std::string bin = t / "cxx";
  ASSERT_TRUE(test::compile_fixture("sym_cxx.cpp", bin));
  auto nm = test::nm_symbols(bin);
  const std::string spin = "_ZN13sonde_fixture6Widget4spinEi", twice = "_ZN13sonde_fixture5twiceIiEET_S1_";
  ASSERT_TRUE(nm.count(spin) && nm.count(twice));
  Symbolizer s(isolated(t));
  ObjectHandle h = s.object(id_of(bin), bin);
  // perf's default style: the qualified name.
  ResolvedSymbol r = s.lookup(h, test::file_offset_of(bin, nm[spin].addr + 2));
  EXPECT_EQ(r.name, "sonde_fixture::Widget::spin");
  EXPECT_EQ(r.raw_name, spin);
  EXPECT_EQ(s.lookup(h, test::file_offset_of(bin, nm[twice].addr + 1)).name, "sonde_fixture::twice<int>");
  {  // Full signatures on request, as c++filt prints them.
    auto o = isolated(t);
    o.demangle_params = true;
    Symbolizer full(o);
    ObjectHandle hf = full.object(id_of(bin), bin);
    EXPECT_EQ(full.lookup(hf, test::file_offset_of(bin, nm[spin].addr + 2)).name,
              test::sh("c++filt " + spin).out.substr(0, 32));
    EXPECT_EQ(full.lookup(hf, test::file_offset_of(bin, nm[spin].addr + 2)).name, "sonde_fixture::Widget::spin(int)");
    EXPECT_EQ(full.lookup(hf, test::file_offset_of(bin, nm[twice].addr + 1)).name, "int sonde_fixture::twice<int>(int)");
  }

  auto o = isolated(t);
  o.demangle = false;
  Symbolizer raw(o);
  ObjectHandle hr = raw.object(id_of(bin), bin);
  EXPECT_EQ(raw.lookup(hr, test::file_offset_of(bin, nm[spin].addr + 2)).name, spin);
}

TEST(Symbolizer, StrippedBinaryResolvesThroughDebugRoot) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  ASSERT_TRUE(test::split_debug(bin, t / "debugroot"));
  ASSERT_TRUE(test::nm_symbols(bin).empty()) << "strip left symbols";
  uint64_t off = test::file_offset_of(bin, nm.at("sym_local_gamma").addr + 3);

  {  // Without the debug root: the stripped binary has no such symbol.
    Symbolizer s(isolated(t));
    ResolvedSymbol r = s.lookup(s.object(id_of(bin), bin), off);
    EXPECT_EQ(r.reason, Reason::kUnknown);
    EXPECT_TRUE(r.name.empty());
  }
  auto o = isolated(t);
  o.debug_roots = {t / "debugroot"};
  Symbolizer s(o);
  ObjectHandle h = s.object(id_of(bin), bin);
  EXPECT_EQ(s.info(h).source, "debug-file");
  ResolvedSymbol r = s.lookup(h, off);
  EXPECT_EQ(r.name, "sym_local_gamma");
  EXPECT_EQ(r.offset, 3u);
  // DWARF comes from the debug file as well.
  auto line = s.srcline(h, off);
  ASSERT_TRUE(line);
  EXPECT_TRUE(std::string(line->file).ends_with("sym_funcs.c"));
}

TEST(Symbolizer, StrippedBinaryResolvesThroughDebuglink) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  auto r0 = test::sh("cd '" + t.path() + "' && objcopy --only-keep-debug fx fx.dbg && strip --strip-all fx && "
                     "objcopy --add-gnu-debuglink=fx.dbg fx");
  ASSERT_EQ(r0.exit_code, 0) << r0.err;
  Symbolizer s(isolated(t));
  ObjectHandle h = s.object(id_of(bin), bin);
  EXPECT_EQ(s.info(h).source, "debuglink");
  EXPECT_EQ(s.info(h).symbol_file, t / "fx.dbg");
  EXPECT_EQ(s.lookup(h, test::file_offset_of(bin, nm.at("sym_beta").addr + 1)).name, "sym_beta");
}

TEST(Symbolizer, MiniDebugInfoResolves) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  ASSERT_TRUE(test::add_minidebuginfo(bin, t.path()));
  ASSERT_EQ(test::sh("readelf -SW '" + bin + "' | grep -c gnu_debugdata").out, "1\n");
  Symbolizer s(isolated(t));
  ObjectHandle h = s.object(id_of(bin), bin);
  EXPECT_EQ(s.info(h).source, "minidebuginfo");
  for (const char* name : {"sym_alpha", "sym_local_gamma", "main"}) {
    ResolvedSymbol r = s.lookup(h, test::file_offset_of(bin, nm.at(name).addr + 2));
    EXPECT_EQ(r.name, name);
    EXPECT_EQ(r.offset, 2u);
  }
}

TEST(Symbolizer, RebuiltBinaryIsNotUsedAndTheCacheStillResolves) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  BuildId old_id = id_of(bin);
  uint64_t off = test::file_offset_of(bin, nm.at("sym_alpha").addr + 4);
  BuildIdCache(t / "cache").add(bin);
  // Rebuild with different code at the same path.
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin, "-O2"));
  ASSERT_NE(test::build_id_of(bin), old_id.hex());

  auto no_cache = isolated(t);
  no_cache.use_cache = false;
  {
    Symbolizer s(no_cache);
    ObjectHandle h = s.object(old_id, bin);
    ResolvedSymbol r = s.lookup(h, off);
    EXPECT_EQ(r.reason, Reason::kBuildIdMismatch);
    EXPECT_EQ(reason_text(r.reason), "build-id mismatch");
    EXPECT_TRUE(r.name.empty());
    EXPECT_NE(s.info(h).note.find("build-id mismatch"), std::string::npos) << s.info(h).note;
  }
  {
    Symbolizer s(isolated(t));
    ObjectHandle h = s.object(old_id, bin);
    EXPECT_EQ(s.info(h).source, "cache");
    EXPECT_EQ(s.lookup(h, off).name, "sym_alpha");
  }
  std::filesystem::remove(bin);
  {
    Symbolizer s(isolated(t));
    ResolvedSymbol r = s.lookup(s.object(old_id, bin), off);
    EXPECT_EQ(r.name, "sym_alpha");
    EXPECT_EQ(r.offset, 4u);
  }
  {
    Symbolizer s(no_cache);
    EXPECT_EQ(s.lookup(s.object(old_id, bin), off).reason, Reason::kNotFound);
  }
}

TEST(Symbolizer, ContainerPathsResolveThroughProcPidRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "chroot needs root";
  TempDir t;
  // A static binary at /app/fx inside a chroot: the host has no /app/fx.
  std::filesystem::create_directories(t / "rootfs/app");
  std::string bin = t / "rootfs/app/fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin, "-static"));
  ASSERT_FALSE(std::filesystem::exists("/app/fx"));
  auto nm = test::nm_symbols(bin);
  uint64_t off = test::file_offset_of(bin, nm.at("sym_beta").addr + 2);
  BuildId id = id_of(bin);
  std::string rootfs = t / "rootfs";
  test::ChrootedProcess child(rootfs, "/app/fx", bin);
  ASSERT_TRUE(child.running());
  pid_t pid = child.pid();
  {
    Symbolizer s(isolated(t));
    ObjectHandle h = s.object(id, "/app/fx", pid);
    ResolvedSymbol r = s.lookup(h, off);
    EXPECT_EQ(r.name, "sym_beta");
    EXPECT_EQ(s.info(h).symbol_file, "/proc/" + std::to_string(pid) + "/root/app/fx");
    auto o = isolated(t);
    o.use_proc_root = false;
    Symbolizer host_only(o);
    EXPECT_EQ(host_only.lookup(host_only.object(id, "/app/fx", pid), off).reason, Reason::kNotFound);
  }
}

TEST(Symbolizer, SourceLinesAndInlineFramesMatchAddr2line) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  auto nm = test::nm_symbols(bin);
  const auto& alpha = nm.at("sym_alpha");
  // Find an address of sym_alpha that addr2line reports inside the inlined helper.
  std::string addrs;
  for (uint64_t a = alpha.addr; a < alpha.addr + alpha.size; ++a) addrs += fmt::format(" 0x{:x}", a);
  auto r = test::sh("addr2line -a -i -f -e '" + bin + "'" + addrs);
  auto ls = test::lines(r.out);
  uint64_t inl_addr = 0;
  std::string inl_line;
  for (size_t i = 0; i + 2 < ls.size(); ++i) {
    if (ls[i].rfind("0x", 0) == 0 && ls[i + 1] == "sym_inlined_step") {
      inl_addr = std::stoull(ls[i], nullptr, 16);
      inl_line = ls[i + 2];  // file:line inside the helper
      break;
    }
  }
  ASSERT_NE(inl_addr, 0u) << r.out;
  Symbolizer s(isolated(t));
  ObjectHandle h = s.object(id_of(bin), bin);
  uint64_t off = test::file_offset_of(bin, inl_addr);
  auto line = s.srcline(h, off);
  ASSERT_TRUE(line);
  std::string ours = fmt::format("{}:{}", line->file, line->line);
  EXPECT_EQ(ours, inl_line.substr(0, inl_line.find(' ')));
  std::vector<InlineFrame> frames;
  ASSERT_EQ(s.inline_frames(h, off, frames), 1u);
  EXPECT_EQ(frames[0].function, "sym_inlined_step");
  EXPECT_TRUE(std::string(frames[0].call_file).ends_with("sym_funcs.c"));
  EXPECT_EQ(s.lookup(h, off).name, "sym_alpha");
}

TEST(Symbolizer, BadInputDegradesWithReasons) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  BuildId id = id_of(bin);
  // A corrupt ELF planted in the cache under the right build-id.
  std::string hex = id.hex();
  std::string dir = t / "cache/fake/path" + "/" + hex;
  std::filesystem::create_directories(dir);
  std::filesystem::create_directories(t / "cache/.build-id/" + hex.substr(0, 2));
  std::ofstream(dir + "/elf") << "\x7f" "ELF garbage that is not an object";
  std::filesystem::create_symlink("../../fake/path/" + hex, t / "cache/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2));
  {
    Symbolizer s(isolated(t));
    ObjectHandle h = s.object(id, "/nonexistent/fx");
    EXPECT_EQ(s.lookup(h, 0x1000).reason, Reason::kNotFound);
    ASSERT_FALSE(s.notes().empty());
    EXPECT_NE(s.notes()[0].find("not a valid ELF"), std::string::npos) << s.notes()[0];
    // Another mapping of that build-id whose path exists still resolves.
    ObjectHandle h2 = s.object(id, bin);
    EXPECT_NE(h2, h);
    EXPECT_EQ(s.info(h2).source, "path");
    EXPECT_EQ(s.object(id, "/other/path"), h2);  // found objects are shared by build-id
  }
  // Paths that are relative or climb out resolve to "not found".
  Symbolizer s(isolated(t));
  EXPECT_EQ(s.lookup(s.object(BuildId{}, "../../etc/passwd"), 0).reason, Reason::kNotFound);
  // A non-ELF file at the mapped path, and offsets far outside any segment.
  std::ofstream(t / "junk") << std::string(4096, 'x');
  EXPECT_EQ(s.lookup(s.object(BuildId{}, t / "junk"), 0).reason, Reason::kNotFound);
  EXPECT_EQ(s.lookup(s.object(id, bin), ~uint64_t{0}).reason, Reason::kUnknown);
  EXPECT_EQ(s.lookup(ObjectHandle{}, 0).reason, Reason::kNotFound);
  // Nothing was written outside the cache root.
  EXPECT_FALSE(std::filesystem::exists(t / "fake"));
}

// The vdso image has only .dynsym: code before its first entry point (the
// static helpers a kernel build puts there) has no name. A debug vdso with
// the same build-id (the kernel build's unstripped vdso64.so, or one in a
// debug root) names it. Built here from the running image by adding one
// symbol with objcopy, so the build-id is the running kernel's.
TEST(Symbolizer, TheVdsoIsNamedFromADebugVdsoWithItsBuildId) {
  TempDir t;
  auto image = own_vdso();
  ASSERT_FALSE(image.empty());
  std::string img = t / "vdso.so";
  std::ofstream(img, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), image.size());
  std::string hex = test::build_id_of(img);
  ASSERT_EQ(hex.size(), 40u);
  auto text = test::sh("readelf -SW '" + img + "' | awk '$2==\".text\"{print $4}'").out;
  ASSERT_FALSE(text.empty()) << "no .text in the vdso";
  uint64_t text_start = std::stoull(text, nullptr, 16);
  uint64_t first_entry = UINT64_MAX;
  for (const auto& line : test::lines(test::sh("nm -D --defined-only '" + img + "'").out)) {
    if (line.find(" T ") == std::string::npos && line.find(" W ") == std::string::npos) continue;
    first_entry = std::min<uint64_t>(first_entry, std::stoull(line, nullptr, 16));
  }
  if (first_entry <= text_start) GTEST_SKIP() << "this kernel's vdso has no code before its first entry point";
  std::string debug_dir = t / ("debug/.build-id/" + hex.substr(0, 2));
  std::filesystem::create_directories(debug_dir);
  std::string debug = debug_dir + "/" + hex.substr(2) + ".debug";
  auto oc = test::sh(fmt::format("objcopy --add-symbol sonde_vdso_static=.text:0,function,local '{}' '{}'", img, debug));
  ASSERT_EQ(oc.exit_code, 0) << oc.err;
  ASSERT_EQ(test::build_id_of(debug), hex);
  uint64_t probe = test::file_offset_of(img, text_start + 1);
  {  // Without the debug vdso the address has no name.
    Symbolizer s(isolated(t));
    EXPECT_FALSE(s.lookup(s.object(id_of(img), "[vdso]", 0), probe).resolved());
  }
  SymbolizerOptions o = isolated(t);
  o.debug_roots = {t / "debug"};
  Symbolizer s(o);
  ObjectHandle h = s.object(id_of(img), "[vdso]", 0);
  ResolvedSymbol r = s.lookup(h, probe);
  ASSERT_TRUE(r.resolved()) << reason_text(r.reason) << " " << s.info(h).source;
  EXPECT_EQ(r.name, "sonde_vdso_static");
  EXPECT_EQ(r.offset, 1u);
  EXPECT_NE(s.info(h).source.find(debug), std::string::npos) << s.info(h).source;
}

}  // namespace
}  // namespace sonde
