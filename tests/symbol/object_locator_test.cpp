// ObjectLocator: where an object's files are found by build-id, in order
// (cache, /proc/PID/root/PATH, PATH, debug files, MiniDebugInfo,
// debuginfod; pseudo files from the cache or the running vdso), each
// candidate checked by build-id, and paths that are not regular files never
// opened. Fixtures are compiled here; build-ids come from readelf.
#include "kernel/process_environment.h"
#include "symbol/object_locator.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>

#include "cache/buildid_cache.h"
#include "elf/vdso.h"
#include "symbol/fixture_util.h"

namespace sonde {
namespace {

using test::SavedEnv;
using test::TempDir;

BuildId id_of(const std::string& bin) {
  auto id = BuildId::from_hex(test::build_id_of(bin));
  EXPECT_TRUE(id) << bin;
  return id.value_or(BuildId{});
}

// A locator over a cache and debug roots inside `t`, without debuginfod.
struct Fixture {
  explicit Fixture(const TempDir& t, std::vector<std::string> debug_roots = {})
      : cache(t / "cache"), locator(options(t, std::move(debug_roots)), &cache, notes) {}
  static LocatorOptions options(const TempDir& t, std::vector<std::string> roots) {
    LocatorOptions o;
    o.debug_roots = roots.empty() ? std::vector<std::string>{t / "no-debug-root"} : std::move(roots);
    return o;
  }
  std::string all_notes() const {
    std::string all;
    for (const auto& n : notes.lines()) all += n + "\n";
    return all;
  }
  BuildIdCache cache;
  NoteList notes;
  ObjectLocator locator;
};


TEST(ObjectLocator, TheCacheComesBeforeThePath) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  Fixture f(t);
  LocatedObject path_only = f.locator.find_binary(id_of(bin), bin, 0);
  ASSERT_TRUE(path_only.binary);
  EXPECT_EQ(path_only.binary_source, "path");
  EXPECT_EQ(path_only.binary->path(), bin);
  EXPECT_EQ(path_only.reason, Reason::kNone);
  EXPECT_TRUE(path_only.note.empty()) << path_only.note;

  f.cache.add(bin);
  LocatedObject cached = f.locator.find_binary(id_of(bin), bin, 0);
  ASSERT_TRUE(cached.binary);
  EXPECT_EQ(cached.binary_source, "cache");
  EXPECT_TRUE(cached.binary->path().starts_with(t / "cache/")) << cached.binary->path();
}

TEST(ObjectLocator, TheContainerRootComesBeforeThePath) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  // This process's root is the host's: both candidates hold the object, the
  // one through /proc/PID/root is taken.
  const pid_t self = getpid();
  Fixture f(t);
  LocatedObject found = f.locator.find_binary(id_of(bin), bin, self);
  ASSERT_TRUE(found.binary);
  EXPECT_EQ(found.binary_source, "path");
  EXPECT_EQ(found.binary->path(), fmt::format("/proc/{}/root{}", self, bin));

  NoteList notes;
  LocatorOptions host_only = Fixture::options(t, {});
  host_only.use_proc_root = false;
  ObjectLocator l(host_only, nullptr, notes);
  EXPECT_EQ(l.find_binary(id_of(bin), bin, self).binary->path(), bin);
}

// In a chroot the container's file is another build than the host's at the
// same path: the container's is checked first, skipped with its reason, and
// the host's (the recorded build) is used.
TEST(ObjectLocator, AContainerFileOfAnotherBuildIsSkippedForTheHostPath) {
  if (geteuid() != 0) GTEST_SKIP() << "chroot needs root";
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin, "-static"));
  std::string rootfs = t / "rootfs";
  std::filesystem::create_directories(rootfs + t.path());
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", rootfs + bin, "-static -O2"));
  ASSERT_NE(test::build_id_of(rootfs + bin), test::build_id_of(bin));
  test::ChrootedProcess child(rootfs, bin, rootfs + bin);
  ASSERT_TRUE(child.running());
  pid_t pid = child.pid();
  Fixture f(t);
  LocatedObject host = f.locator.find_binary(id_of(bin), bin, pid);
  ASSERT_TRUE(host.binary);
  EXPECT_EQ(host.binary->path(), bin);
  EXPECT_NE(host.note.find(fmt::format("/proc/{}/root{}: build-id mismatch", pid, bin)), std::string::npos)
      << host.note;
  LocatedObject container = f.locator.find_binary(id_of(rootfs + bin), bin, pid);
  ASSERT_TRUE(container.binary);
  EXPECT_EQ(container.binary->path(), fmt::format("/proc/{}/root{}", pid, bin));
}

TEST(ObjectLocator, AnotherBuildAtThePathIsAMismatchWithItsReason) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  BuildId old_id = id_of(bin);
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin, "-O2"));
  BuildId new_id = id_of(bin);
  ASSERT_FALSE(new_id == old_id);
  Fixture f(t);
  LocatedObject found = f.locator.find_binary(old_id, bin, 0);
  EXPECT_FALSE(found.binary);
  EXPECT_EQ(found.reason, Reason::kBuildIdMismatch);
  EXPECT_EQ(found.note, fmt::format("{}: build-id mismatch (file has {}, recorded {})", bin, new_id.hex(), old_id.hex()));

  LocatedObject symbols = f.locator.find_symbols(old_id, bin, 0);
  EXPECT_FALSE(symbols.found());
  EXPECT_EQ(symbols.reason, Reason::kBuildIdMismatch);
  EXPECT_NE(f.all_notes().find(symbols.note), std::string::npos) << f.all_notes();
}

TEST(ObjectLocator, WithoutARecordedBuildIdThePathIsUsedUnverified) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  Fixture f(t);
  LocatedObject found = f.locator.find_binary(BuildId{}, bin, 0);
  ASSERT_TRUE(found.binary);
  EXPECT_EQ(found.note, bin + ": no recorded build-id, used unverified");
}

// Debug files, in order: the debug roots by build-id (one with another
// build's file is skipped with a note), the cache's `debug`, .gnu_debuglink.
TEST(ObjectLocator, DebugFilesAreFoundInOrderAndCheckedByBuildId) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::string other = t / "other";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", other, "-O2"));
  BuildId id = id_of(bin);
  std::string hex = id.hex();
  // The right debug file in the second root; another build's under the
  // same name in the first.
  ASSERT_TRUE(test::split_debug(bin, t / "root2"));
  std::string wrong = t / ("root1/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  std::filesystem::create_directories(std::filesystem::path(wrong).parent_path());
  ASSERT_EQ(test::sh("objcopy --only-keep-debug '" + other + "' '" + wrong + "'").exit_code, 0);
  {
    Fixture f(t, {t / "root1", t / "root2"});
    LocatedObject found = f.locator.find_symbols(id, bin, 0);
    ASSERT_TRUE(found.binary);
    EXPECT_EQ(found.binary_source, "path");
    ASSERT_TRUE(found.debug);
    EXPECT_EQ(found.debug_source, "debug-file");
    EXPECT_TRUE(found.debug->path().starts_with(t / "root2/")) << found.debug->path();
    EXPECT_NE(f.all_notes().find("ignoring debug file " + wrong + ": build-id mismatch"), std::string::npos)
        << f.all_notes();
  }
  // The cache's debug file, when no root has one.
  std::string cached_debug = t / "fx.debug";
  std::filesystem::copy_file(t / ("root2/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug"), cached_debug);
  {
    Fixture f(t);
    auto entry = f.cache.add(bin);
    std::filesystem::copy_file(cached_debug, entry.dir + "/debug");
    LocatedObject found = f.locator.find_symbols(id, bin, 0);
    ASSERT_TRUE(found.debug);
    EXPECT_EQ(found.binary_source, "cache");
    EXPECT_EQ(found.debug_source, "cache");
  }
  // .gnu_debuglink beside the object, when nothing has it by build-id.
  std::filesystem::remove_all(t / "cache");
  ASSERT_EQ(test::sh("objcopy --add-gnu-debuglink='" + cached_debug + "' '" + bin + "'").exit_code, 0);
  {
    Fixture f(t);
    LocatedObject found = f.locator.find_symbols(id_of(bin), bin, 0);
    ASSERT_TRUE(found.debug);
    EXPECT_EQ(found.debug_source, "debuglink");
    EXPECT_EQ(found.debug->path(), cached_debug);
  }
}

TEST(ObjectLocator, ADebugFileComesBeforeMiniDebugInfo) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  std::filesystem::create_directories(t / "work");
  std::string debug_root = t / "debugroot";
  std::string hex = test::build_id_of(bin);
  std::string debug = debug_root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
  std::filesystem::create_directories(std::filesystem::path(debug).parent_path());
  ASSERT_EQ(test::sh("objcopy --only-keep-debug '" + bin + "' '" + debug + "'").exit_code, 0);
  ASSERT_TRUE(test::add_minidebuginfo(bin, t / "work"));
  {
    Fixture f(t);
    LocatedObject found = f.locator.find_symbols(id_of(bin), bin, 0);
    EXPECT_FALSE(found.debug);
    ASSERT_TRUE(found.mini);
  }
  Fixture f(t, {debug_root});
  LocatedObject found = f.locator.find_symbols(id_of(bin), bin, 0);
  ASSERT_TRUE(found.debug);
  EXPECT_EQ(found.debug->path(), debug);
  EXPECT_FALSE(found.mini);
}

// debuginfod is asked last, and only when no local file has the symbols; a
// server that cannot be reached is one note, then the object is not found.
TEST(ObjectLocator, DebuginfodIsAskedLastAndADeadServerIsOneNote) {
  TempDir t;
  SavedEnv urls("DEBUGINFOD_URLS"), timeout("DEBUGINFOD_TIMEOUT"), retries("DEBUGINFOD_RETRY_LIMIT"),
      client_cache("DEBUGINFOD_CACHE_PATH");
  unsetenv("DEBUGINFOD_TIMEOUT");
  unsetenv("DEBUGINFOD_RETRY_LIMIT");
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);  // nothing listens on port 1
  setenv("DEBUGINFOD_CACHE_PATH", (t / "client-cache").c_str(), 1);
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  LocatorOptions o = Fixture::options(t, {});
  o.use_debuginfod = true;
  kernel::set_debuginfod_defaults(3);  // as the CLI does before it reads
  NoteList notes;
  ObjectLocator l(o, nullptr, notes);
  EXPECT_STREQ(getenv("DEBUGINFOD_TIMEOUT"), "3");
  EXPECT_STREQ(getenv("DEBUGINFOD_RETRY_LIMIT"), "0");
  // A local object with its .symtab: debuginfod is not asked.
  EXPECT_EQ(l.find_symbols(id_of(bin), bin, 0).binary_source, "path");
  EXPECT_TRUE(notes.lines().empty());
  const BuildId missing = *BuildId::from_hex("00112233445566778899aabbccddeeff00112233");
  LocatedObject found = l.find_symbols(missing, "/nonexistent/x", 0);
  EXPECT_FALSE(found.found());
  EXPECT_EQ(found.reason, Reason::kNotFound);
  EXPECT_EQ(found.note, "/nonexistent/x (build-id " + missing.hex() + "): not found");
  ASSERT_EQ(notes.lines().size(), 2u);
  EXPECT_TRUE(notes.lines()[0].starts_with("debuginfod (http://127.0.0.1:1) failed")) << notes.lines()[0];
  EXPECT_EQ(notes.lines()[1], found.note);
}

// The environment is the CLI's (kernel/process_environment.h): a locator
// leaves it as it is, with or without debuginfod.
TEST(ObjectLocator, WithoutDebuginfodTheEnvironmentIsLeftAlone) {
  SavedEnv urls("DEBUGINFOD_URLS"), timeout("DEBUGINFOD_TIMEOUT"), retries("DEBUGINFOD_RETRY_LIMIT");
  unsetenv("DEBUGINFOD_TIMEOUT");
  unsetenv("DEBUGINFOD_RETRY_LIMIT");
  setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
  NoteList notes;
  ObjectLocator l(LocatorOptions{}, nullptr, notes);  // use_debuginfod = false
  EXPECT_EQ(getenv("DEBUGINFOD_TIMEOUT"), nullptr);
  LocatorOptions with;
  with.use_debuginfod = true;
  ObjectLocator l2(with, nullptr, notes);
  EXPECT_EQ(getenv("DEBUGINFOD_TIMEOUT"), nullptr);
  EXPECT_EQ(getenv("DEBUGINFOD_RETRY_LIMIT"), nullptr);
}

// A path from a recording may name a FIFO on the reading machine: opening
// it would block until a writer came. Never opened, whatever the step.
TEST(ObjectLocator, AFifoIsNeverOpened) {
  TempDir t;
  std::string bin = t / "fx";
  ASSERT_TRUE(test::compile_fixture("sym_funcs.c", bin));
  BuildId id = id_of(bin);
  std::string hex = id.hex();
  std::string fifo = t / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string debug_dir = t / ("debugroot/.build-id/" + hex.substr(0, 2));
  std::filesystem::create_directories(debug_dir);
  ASSERT_EQ(mkfifo((debug_dir + "/" + hex.substr(2) + ".debug").c_str(), 0600), 0);
  Fixture f(t, {t / "debugroot"});
  auto lookup = std::async(std::launch::async, [&] {
    return std::make_pair(f.locator.find_symbols(id, fifo, 0), f.locator.find_binary(BuildId{}, fifo, 0));
  });
  if (lookup.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    // Unblock the reader (a writer's non-blocking open), then fail.
    for (const std::string& p : {fifo, debug_dir + "/" + hex.substr(2) + ".debug"}) ::close(::open(p.c_str(), O_WRONLY | O_NONBLOCK));
    FAIL() << "a FIFO was opened";
  }
  auto [symbols, binary] = lookup.get();
  EXPECT_FALSE(symbols.found());
  EXPECT_EQ(symbols.reason, Reason::kNotFound);
  EXPECT_FALSE(binary.binary);
}

// [vdso]: the cache's copy first, then this kernel's own image when the
// recorded build-id is its (or none was recorded).
TEST(ObjectLocator, TheVdsoComesFromTheCacheOrTheRunningKernel) {
  TempDir t;
  auto image = own_vdso();
  ASSERT_FALSE(image.empty());
  auto running = read_build_id(image);
  ASSERT_TRUE(running && !running->empty());
  Fixture f(t);
  for (const BuildId& id : {BuildId{}, *running}) {
    LocatedObject found = f.locator.find_binary(id, "[vdso]", 0);
    ASSERT_TRUE(found.binary);
    EXPECT_EQ(found.binary_source, "running vdso");
    EXPECT_LT(found.binary->fd(), 0) << "an image in memory";
  }
  const BuildId other = *BuildId::from_hex("00112233445566778899aabbccddeeff00112233");
  EXPECT_EQ(f.locator.find_binary(other, "[vdso]", 0).reason, Reason::kNotFound);
  EXPECT_EQ(f.locator.find_binary(*running, "[heap]", 0).reason, Reason::kNotFound);

  f.cache.add_vdso(*running, image);
  LocatedObject cached = f.locator.find_pseudo(*running, "[vdso]");
  ASSERT_TRUE(cached.binary);
  EXPECT_EQ(cached.binary_source, "cache");
  EXPECT_EQ(cached.binary->build_id(), *running);
}

}  // namespace
}  // namespace sonde
