// perf 6.1's long and short names of every kind of mapping (util/mapped_path.h).
#include "util/mapped_path.h"

#include <gtest/gtest.h>

namespace sonde {
namespace {

struct Case {
  const char* path;
  const char* long_name;
  const char* short_name;
};

TEST(MappingNames, EveryKindAsPerfNamesIt) {
  const Case cases[] = {
      {"/usr/lib/libc.so.6", "/usr/lib/libc.so.6", "libc.so.6"},
      {"/tmp/x.so (deleted)", "/tmp/x.so (deleted)", "x.so (deleted)"},
      {"/memfd:code (deleted)", "/memfd:code (deleted)", "memfd:code (deleted)"},
      {"//anon", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"/dev/zero (deleted)", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"/anon_hugepage (deleted)", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"[heap]", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"[stack]", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"/SYSV00000000 (deleted)", "/tmp/perf-42.map", "[JIT] tid 42"},
      {"/tmp/perf-7.map", "/tmp/perf-7.map", "[JIT] tid 7"},
      {"/home/u/.debug/jit/java-jit-1/jitted-7-3.so", "/home/u/.debug/jit/java-jit-1/jitted-7-3.so", "jitted-7-3.so"},
      {"[vdso]", "[vdso]", "[vdso]"},
      {"[anon:dalvik]", "[anon:dalvik]", "[anon:dalvik]"},
      {"[kernel.kallsyms]_text", "[kernel.kallsyms]_text", "[kernel.kallsyms]"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(mapping_long_name(c.path, 42), c.long_name) << c.path;
    EXPECT_EQ(mapping_short_name(c.long_name), c.short_name) << c.path;
  }
  EXPECT_EQ(mapping_export_name("/tmp/perf-7.map"), "[JIT] tid 7");
  EXPECT_EQ(mapping_export_name("/usr/lib/libc.so.6"), "/usr/lib/libc.so.6");
}

TEST(MappingNames, BadNamesStayReadable) {
  EXPECT_EQ(mapping_long_name("", 1), "[unknown]");
  EXPECT_EQ(mapping_long_name("/a\tb\nc\x7f", 1), "/a?b?c?");
  EXPECT_EQ(mapping_short_name("[broken"), "[broken");
  EXPECT_EQ(mapping_short_name("/dir/"), "/dir/");
  EXPECT_EQ(mapping_short_name("/tmp/perf-x.map"), "perf-x.map");
  EXPECT_EQ(mapping_short_name("/tmp/perf-99999999999.map"), "perf-99999999999.map");
}

// The one notion of a pseudo object, which report, diff, annotate, the
// exports and the symbol locator ask instead of testing for a '['.
TEST(MappingNames, PseudoObjectsAndLibraries) {
  for (const char* p : {"[kernel.kallsyms]_text", "[kernel]", "[vdso]", "[anon:x]", "[heap]", "[ext4]", "[JIT] tid 7"})
    EXPECT_TRUE(is_pseudo_path(p)) << p;
  for (const char* p : {"", "/usr/lib/libc.so.6", "//anon", "/memfd:x (deleted)", "/tmp/perf-7.map", "a.out"})
    EXPECT_FALSE(is_pseudo_path(p)) << p;
  EXPECT_EQ(classify_mapped_path("[kernel]"), MappedPath::kKernel);
  EXPECT_EQ(classify_mapped_path("[vdso]"), MappedPath::kVdso);
  for (const char* p : {"/usr/lib/libc.so.6", "/lib/ld-linux-x86-64.so.2", "[vdso]", "[kernel.kallsyms]", "/dir/", ""})
    EXPECT_TRUE(is_library_path(p)) << p;
  for (const char* p : {"/usr/bin/python3.11", "/tmp/a.out", "//anon", "/dir/[x]/prog"})
    EXPECT_FALSE(is_library_path(p)) << p;
}

}  // namespace
}  // namespace sonde
