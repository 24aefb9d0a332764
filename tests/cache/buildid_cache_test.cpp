// The build-id cache: perf's layout, interoperability with perf 6.1 in both
// directions, the CLI, bad input and concurrent writers.
#include "cache/buildid_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "elf/vdso.h"
#include "symbol/fixture_util.h"
#include "util/error.h"

namespace sonde {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

std::string sonde_cmd(const std::string& args) { return test::quoted(test::sonde_bin()) + " buildid-cache " + args; }

TEST(BuildIdCache, LayoutIsPerfs) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::string id = test::build_id_of(bin);
  BuildIdCache c(t / "root");
  auto e = c.add(bin);
  EXPECT_EQ(e.build_id.hex(), id);
  EXPECT_EQ(e.path, bin);
  std::string link = t / "root/.build-id/" + id.substr(0, 2) + "/" + id.substr(2);
  ASSERT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link).string(), "../.." + bin + "/" + id);
  EXPECT_EQ(test::build_id_of(t / "root" + bin + "/" + id + "/elf"), id);
  auto l = c.list();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].path, bin);
  EXPECT_EQ(c.lookup(e.build_id).value_or(""), t / "root" + bin + "/" + id + "/elf");
  // Through a symlink, the real file is cached (as perf does).
  fs::create_symlink(bin, t / "alias");
  EXPECT_EQ(c.add(t / "alias").path, bin);
  EXPECT_EQ(c.list().size(), 1u);
  // Remove drops the link and the folder.
  EXPECT_TRUE(c.remove(e.build_id));
  EXPECT_FALSE(fs::exists(link));
  EXPECT_FALSE(fs::exists(t / "root" + bin));
  EXPECT_TRUE(c.list().empty());
  EXPECT_FALSE(c.remove(e.build_id));
}

// The vdso goes where perf record puts it, and perf finds it there.
TEST(BuildIdCache, VdsoIsKeptInPerfsLayoutAndAWrongIdIsRefused) {
  TempDir t;
  auto image = own_vdso();
  ASSERT_FALSE(image.empty());
  auto id = read_build_id(image);
  ASSERT_TRUE(id);
  BuildIdCache c(t / "root");
  BuildId other = *BuildId::from_hex("00112233445566778899aabbccddeeff00112233");
  try {
    c.add_vdso(other, image);
    ADD_FAILURE() << "an image kept under another build-id";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not have build-id 0011"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(t / "root/[vdso]/" + other.hex()) && !fs::is_empty(t / "root/[vdso]/" + other.hex()));
  auto e = c.add_vdso(*id, image);
  std::string hex = id->hex();
  std::string file = t / "root/[vdso]/" + hex + "/vdso";
  EXPECT_EQ(c.lookup(*id, "vdso").value_or(""), file);
  EXPECT_EQ(test::build_id_of(file), hex);
  EXPECT_EQ(fs::file_size(file), image.size());
  EXPECT_EQ(fs::read_symlink(t / "root/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2)).string(),
            "../../[vdso]/" + hex);
  // perf record keeps the same bytes under the same names.
  auto perf = test::sh("perf --buildid-dir '" + t.path() + "/perf' record -q --buildid-all -o '" + t.path() +
                       "/perf.data' -- true 2>&1");
  ASSERT_EQ(perf.exit_code, 0) << perf.out;
  std::string perfs = t / "perf/[vdso]/" + hex + "/vdso";
  ASSERT_TRUE(fs::exists(perfs)) << "perf kept no vdso under " << hex;
  EXPECT_EQ(test::sh("cmp '" + perfs + "' '" + file + "'").exit_code, 0);
  EXPECT_EQ(fs::read_symlink(t / "perf/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2)).string(),
            "../../[vdso]/" + hex);
}

TEST(BuildIdCache, CopiesAcrossFileSystems) {
  // /dev/shm is a tmpfs: link(2) into the cache fails with EXDEV, FICLONE
  // too, so the object must be copied.
  TempDir t;
  struct stat a {}, b {};
  if (stat("/dev/shm", &a) != 0 || stat(t.path().c_str(), &b) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no second file system";
  std::string shm = fmt::format("/dev/shm/sonde-cache-test.{}", getpid());
  fs::create_directories(shm);
  struct Cleanup {
    std::string p;
    ~Cleanup() { fs::remove_all(p); }
  } cleanup{shm};
  std::string bin = shm + "/fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  BuildIdCache c(t / "root");
  auto e = c.add(bin);
  std::string elf = e.dir + "/elf";
  struct stat src {}, dst {};
  ASSERT_EQ(stat(bin.c_str(), &src), 0);
  ASSERT_EQ(stat(elf.c_str(), &dst), 0);
  EXPECT_NE(src.st_ino, dst.st_ino);
  EXPECT_EQ(src.st_size, dst.st_size);
  EXPECT_EQ(dst.st_mode & 0111, src.st_mode & 0111);
  EXPECT_EQ(test::sh("cmp '" + bin + "' '" + elf + "'").exit_code, 0);
  EXPECT_TRUE(c.lookup(e.build_id));
  EXPECT_EQ(test::sh("find '" + t.path() + "' -name '*.tmp.*' | wc -l").out, "0\n");
}

TEST(BuildIdCache, PerfReadsWhatSondeAddsAndTheReverse) {
  TempDir t;
  std::string a = t / "a", b = t / "b";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", a));
  ASSERT_TRUE(test::compile_fixture("sym_cxx.cpp", b));
  std::string ida = test::build_id_of(a), idb = test::build_id_of(b);
  std::string root = t / "root";
  auto r = test::sh(sonde_cmd("--add '" + a + "' --buildid-dir '" + root + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto pl = test::sh("perf --buildid-dir '" + root + "' buildid-cache -l");
  EXPECT_EQ(pl.out, ida + " " + a + "\n") << pl.err;
  r = test::sh("perf --buildid-dir '" + root + "' buildid-cache --add '" + b + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto sl = test::sh(sonde_cmd("--list --buildid-dir '" + root + "'"));
  EXPECT_EQ(sl.exit_code, 0);
  EXPECT_EQ(test::count_lines_with(sl.out, ida + " " + a), 1u) << sl.out;
  EXPECT_EQ(test::count_lines_with(sl.out, idb + " " + b), 1u) << sl.out;
  EXPECT_EQ(test::lines(sl.out).size(), 2u) << sl.out;
  // perf's entry is usable by sonde: the cached ELF verifies.
  BuildIdCache c(root);
  EXPECT_TRUE(c.lookup(*BuildId::from_hex(idb)));
  // perf lists both, and sonde's removal is seen by perf.
  pl = test::sh("perf --buildid-dir '" + root + "' buildid-cache -l | sort");
  EXPECT_EQ(test::lines(pl.out).size(), 2u) << pl.out;
  r = test::sh(sonde_cmd("--remove " + ida + " --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  pl = test::sh("perf --buildid-dir '" + root + "' buildid-cache -l");
  EXPECT_EQ(pl.out, idb + " " + b + "\n");
  // SONDE_BUILDID_DIR is the default root.
  sl = test::sh("SONDE_BUILDID_DIR='" + root + "' " + sonde_cmd("--list"));
  EXPECT_EQ(sl.out, idb + " " + b + "\n");
}

TEST(BuildIdCache, PurgeMissing) {
  TempDir t;
  std::string a = t / "a", b = t / "b";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", a));
  ASSERT_TRUE(test::compile_fixture("sym_cxx.cpp", b));
  std::string root = t / "root";
  std::string ida = test::build_id_of(a), idb = test::build_id_of(b);
  ASSERT_EQ(test::sh(sonde_cmd("--add '" + a + "' '" + b + "' --buildid-dir '" + root + "'")).exit_code, 0);
  fs::remove(a);
  auto r = test::sh(sonde_cmd("--purge-missing --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "purged " + ida + " " + a + "\n");
  EXPECT_EQ(test::sh(sonde_cmd("--list --buildid-dir '" + root + "'")).out, idb + " " + b + "\n");
  EXPECT_FALSE(fs::exists(root + a));
}

// --index BIN and --all build symbol indexes in the entries (made for an
// object not cached yet); --remove and --purge-missing drop them with it.
TEST(BuildIdCache, IndexBuildsSymbolIndexesThatRemoveAndPurgeDrop) {
  TempDir t;
  std::string a = t / "a", b = t / "b";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", a));
  ASSERT_TRUE(test::compile_fixture("sym_cxx.cpp", b));
  const std::string root = t / "root";
  const std::string ida = test::build_id_of(a), idb = test::build_id_of(b);
  const std::string index_a = root + a + "/" + ida + "/sonde-symbols.idx";
  const std::string index_b = root + b + "/" + idb + "/sonde-symbols.idx";
  auto r = test::sh(sonde_cmd("--index '" + a + "' --buildid-dir '" + root + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("indexed " + ida + " " + a + " (", 0), 0u) << r.out;
  EXPECT_TRUE(fs::exists(index_a));
  EXPECT_FALSE(fs::exists(root + a + "/" + ida + "/elf")) << "--index keeps the index only";
  ASSERT_EQ(test::sh(sonde_cmd("--add '" + b + "' --buildid-dir '" + root + "'")).exit_code, 0);
  r = test::sh(sonde_cmd("--all --buildid-dir '" + root + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::count_lines_with(r.out, "indexed "), 2u) << r.out;
  EXPECT_TRUE(fs::exists(index_b));
  r = test::sh(sonde_cmd("--remove " + idb + " --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(index_b));
  fs::remove(a);
  r = test::sh(sonde_cmd("--purge-missing --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.out, "purged " + ida + " " + a + "\n");
  EXPECT_FALSE(fs::exists(index_a));
  // Not an ELF file, and a missing one: one line each, exit 1.
  std::ofstream(t / "text") << "hello";
  r = test::sh(sonde_cmd("--index '" + t.path() + "/text' '" + t.path() + "/missing' --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sonde buildid-cache: " + t.path() + "/text: not an ELF file with a build-id\n"
                   "sonde buildid-cache: " + t.path() + "/missing: not an ELF file with a build-id\n");
  r = test::sh(sonde_cmd("--buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give one of --add, --remove, --list, --purge-missing, --index, --all"), std::string::npos) << r.err;
}

TEST(BuildIdCache, BadInputIsRejectedAndNothingIsWrittenOutsideTheRoot) {
  TempDir t;
  std::string root = t / "root";
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  // Build-ids with path components are usage errors.
  for (const char* bad : {"../../etc", "ab/../cd", "zz", "0123/"}) {
    auto r = test::sh(sonde_cmd(std::string("--remove '") + bad + "' --buildid-dir '" + root + "'"));
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("not a build-id"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(BuildId::from_hex("../0011"));
  // Paths with ".." never map into the cache.
  BuildIdCache c(root);
  BuildId id = *BuildId::from_hex(test::build_id_of(bin));
  EXPECT_FALSE(c.entry_dir("/a/../../../x", id));
  EXPECT_FALSE(c.entry_dir("relative/x", id));
  EXPECT_FALSE(is_safe_cache_path("/a//b"));
  EXPECT_TRUE(is_safe_cache_path("/usr/lib/libc.so.6"));
  // A missing file and a non-ELF file: one-line errors, exit 1.
  std::ofstream(t / "text") << "hello";
  auto r = test::sh(sonde_cmd("--add '" + t.path() + "/missing' '" + t.path() + "/text' --buildid-dir '" + root + "'"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(test::count_lines_with(r.err, "cannot add"), 2u) << r.err;
  // Planted links pointing outside the root are ignored, not followed.
  std::string hex = id.hex();
  fs::create_directories(root + "/.build-id/" + hex.substr(0, 2));
  fs::create_directory(t / "outside");
  fs::create_symlink("../../../outside/" + hex, root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2));
  std::vector<std::string> skipped;
  EXPECT_TRUE(c.list(&skipped).empty());
  EXPECT_EQ(skipped.size(), 1u);
  EXPECT_FALSE(c.lookup(id));
  auto rr = test::sh(sonde_cmd("--remove " + hex + " --buildid-dir '" + root + "'"));
  EXPECT_TRUE(fs::exists(t / "outside"));  // removing the bad link never touches its target
  // A corrupt cached ELF is reported, not used.
  c.add(bin);
  std::string elf = root + bin + "/" + hex + "/elf";
  fs::remove(elf);
  std::ofstream(elf) << "\x7f" "ELF not really";
  std::string why;
  EXPECT_FALSE(c.lookup(id, "elf", &why));
  EXPECT_NE(why.find("not a valid ELF"), std::string::npos) << why;
  // A symlink planted inside the cache cannot redirect writes outside it.
  {
    TempDir t2;
    std::string bin2 = t2 / "fx";
    ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin2));
    std::string first = bin2.substr(1, bin2.find('/', 1) - 1);  // e.g. "work"
    fs::create_directories(t2 / "root");
    fs::create_directory(t2 / "elsewhere");
    fs::create_symlink(t2 / "elsewhere", t2 / ("root/" + first));
    auto r2 = test::sh(sonde_cmd("--add '" + bin2 + "' --buildid-dir '" + t2.path() + "/root'"));
    EXPECT_EQ(r2.exit_code, 1);
    EXPECT_NE(r2.err.find("outside the cache root"), std::string::npos) << r2.err;
    EXPECT_TRUE(fs::is_empty(t2 / "elsewhere"));
  }
  // Everything created lives under the root (and our own test files).
  for (const auto& e : fs::directory_iterator(t.path())) {
    std::string n = e.path().filename().string();
    EXPECT_TRUE(n == "root" || n == "fx" || n == "text" || n == "outside") << n;
  }
  EXPECT_TRUE(fs::is_empty(t / "outside"));
}

TEST(BuildIdCache, ConcurrentAddsLeaveAValidCache) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::string id = test::build_id_of(bin);
  // 20 fresh roots, each filled by two processes at once, plus one root
  // both processes keep adding to.
  std::string script = "for i in $(seq 20); do "
                       "  " + sonde_cmd("--add '" + bin + "' --buildid-dir '" + t.path() + "'/r$i") + " & "
                       "  " + sonde_cmd("--add '" + bin + "' --buildid-dir '" + t.path() + "'/r$i") + " & "
                       "  wait; done";
  auto r = test::sh(script);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (int i = 1; i <= 20; ++i) {
    BuildIdCache c(t / fmt::format("r{}", i));
    auto l = c.list();
    ASSERT_EQ(l.size(), 1u) << i;
    EXPECT_EQ(l[0].build_id.hex(), id);
    EXPECT_TRUE(c.lookup(l[0].build_id)) << i;
  }
  // No temporary files are left behind.
  EXPECT_EQ(test::sh("find '" + t.path() + "' -name '*.tmp.*' | wc -l").out, "0\n");
}

}  // namespace
}  // namespace sonde
