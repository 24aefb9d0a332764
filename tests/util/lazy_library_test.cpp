// LazyLibrary: libraries loaded on first use, and the sonde binary that
// relies on it to start without libbpf, libdw, libzstd and liblzma.
#include "util/lazy_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <sstream>

#include "support/test_support.h"

namespace sonde {
namespace {

bool is_loaded(const char* soname) {
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (h) ::dlclose(h);
  return h != nullptr;
}

// libbz2: nothing in this test links or loads it.
constexpr const char* kBz2 = "libbz2.so.1.0";

TEST(LazyLibrary, LoadsTheLibraryOnTheFirstLookupOnly) {
  static constinit LazyLibrary bz2(kBz2);
  ASSERT_FALSE(is_loaded(kBz2)) << "the test needs a library nobody loaded yet";
  using Version = const char* (*)();
  auto version = reinterpret_cast<Version>(bz2.symbol("BZ2_bzlibVersion"));
  EXPECT_TRUE(is_loaded(kBz2));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
  EXPECT_EQ(bz2.symbol("BZ2_bzlibVersion"), reinterpret_cast<void*>(version));
}

TEST(LazyLibraryDeathTest, MissingLibraryEndsTheProcessWithOneLine) {
  static constinit LazyLibrary missing("libsonde-no-such-library.so.7");
  EXPECT_EXIT(missing.symbol("anything"), testing::ExitedWithCode(1),
              "^sonde: cannot load libsonde-no-such-library.so.7: .*\\(is its package installed\\?\\)\n$");
}

TEST(LazyLibraryDeathTest, MissingFunctionEndsTheProcessWithOneLine) {
  static constinit LazyLibrary bz2(kBz2);
  EXPECT_EXIT(bz2.symbol("BZ2_no_such_function"), testing::ExitedWithCode(1),
              "^sonde: libbz2.so.1.0 has no function BZ2_no_such_function \\(not the version sonde was built "
              "with\\?\\)\n$");
}

// The point of it all: the sonde binary does not name the heavy libraries
// as start-up dependencies (DT_NEEDED), so `sonde --version` or `sonde sdt
// list` never loads them; nor the C++ runtime, fmt or protobuf, which it
// links in or no longer uses (docs/architecture.md, "Dependencies").
TEST(SondeBinary, StartsWithoutTheLibrariesItLoadsOnFirstUse) {
  test::RunResult r = test::run({"readelf", "-d", test::sonde_bin()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> needed;
  while (std::getline(lines, line))
    if (line.find("(NEEDED)") != std::string::npos) needed.push_back(line.substr(line.find('[') + 1));
  ASSERT_FALSE(needed.empty()) << r.out;
  bool has_libelf = false;
  for (const auto& n : needed) {
    for (const char* lazy : {"libbpf", "libdw", "libzstd", "liblzma", "libbz2", "libstdc++", "libgcc_s", "libfmt",
                             "libprotobuf"})
      EXPECT_EQ(n.rfind(lazy, 0), std::string::npos) << n << " is loaded at start-up";
    has_libelf = has_libelf || n.rfind("libelf", 0) == 0;
  }
  EXPECT_TRUE(has_libelf) << "readelf output not understood:\n" << r.out;
}

}  // namespace
}  // namespace sonde
