// The kernel symbol index kept beside a cached kallsyms copy: the second
// run reads it instead of the text and resolves the same names; an index
// that is damaged or made from another copy is ignored (and rewritten),
// never trusted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cache/buildid_cache.h"
#include "symbol/fixture_util.h"
#include "symbol/kallsyms_index.h"
#include "symbol/symbolizer.h"
#include "util/fs.h"

namespace sonde {
namespace {

using test::TempDir;

const BuildId kKernel = *BuildId::from_hex("fedcba9876543210fedcba9876543210fedcba98");

// Core symbols, a module whose lines come out of order, an alias.
const char kText[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t second\n"
    "ffffffff81000400 D data_symbol\n"
    "ffffffffc0001000 t mod_b_fn\t[mod_b]\n"
    "ffffffffc0000000 t mod_a_fn\t[mod_a]\n"
    "ffffffff81000500 W weak_one\n";

struct Lookups {
  std::string a, b, weak, mod_a, mod_a_dso, mod_b, file;
  size_t count = 0;
};

Lookups look_up(const std::string& root) {
  SymbolizerOptions o;
  o.cache_root = root;
  Symbolizer s(o);
  ObjectHandle h = s.kernel(kKernel);
  Lookups l;
  l.a = std::string(s.lookup(h, 0xffffffff81000010).name);
  l.b = std::string(s.lookup(h, 0xffffffff81000450).name);
  l.weak = std::string(s.lookup(h, 0xffffffff81000600).name);
  auto ma = s.lookup(h, 0xffffffffc0000010);
  l.mod_a = std::string(ma.name);
  l.mod_a_dso = std::string(ma.dso);
  l.mod_b = std::string(s.lookup(h, 0xffffffffc0001010).name);
  l.file = s.info(h).symbol_file;
  l.count = s.info(h).symbol_count;
  return l;
}

void expect_names(const Lookups& l) {
  EXPECT_EQ(l.a, "startup_64");
  EXPECT_EQ(l.b, "second");
  EXPECT_EQ(l.weak, "weak_one");
  EXPECT_EQ(l.mod_a, "mod_a_fn");
  EXPECT_EQ(l.mod_a_dso, "[mod_a]");
  EXPECT_EQ(l.mod_b, "mod_b_fn");
  EXPECT_EQ(l.count, 5u);
}

bool ends_with(const std::string& s, const std::string& tail) { return s.size() >= tail.size() && s.ends_with(tail); }

TEST(KallsymsIndex, SecondRunReadsTheIndexAndResolvesTheSameNames) {
  TempDir t;
  BuildIdCache cache(t / "cache");
  auto e = cache.add_kallsyms_text(kKernel, kText);
  const std::string idx = e.dir + "/" + kKallsymsIndexName;
  Lookups first = look_up(t / "cache");
  expect_names(first);
  EXPECT_TRUE(ends_with(first.file, "/kallsyms")) << first.file;
  ASSERT_TRUE(std::filesystem::exists(idx)) << "the first run did not write the index";
  Lookups second = look_up(t / "cache");
  expect_names(second);
  EXPECT_EQ(second.file, idx);
}

TEST(KallsymsIndex, DamagedOrForeignIndexIsIgnoredAndRewritten) {
  TempDir t;
  BuildIdCache cache(t / "cache");
  auto e = cache.add_kallsyms_text(kKernel, kText);
  const std::string idx = e.dir + "/" + kKallsymsIndexName;
  look_up(t / "cache");
  auto good = read_small_file(idx);
  ASSERT_TRUE(good);
  auto damaged = [&](std::string bytes, const char* what) {
    write_file_atomic(idx, bytes);
    Lookups l = look_up(t / "cache");
    expect_names(l);
    EXPECT_TRUE(ends_with(l.file, "/kallsyms")) << what << ": the index was used";
    EXPECT_EQ(read_small_file(idx), good) << what << ": not rewritten";
  };
  damaged(good->substr(0, good->size() - 3), "truncated");
  damaged(good->substr(0, 40), "shorter than a header");
  damaged("", "empty");
  std::string bad = *good;
  bad[0] = 'X';
  damaged(bad, "bad magic");
  bad = *good;
  bad[40] = static_cast<char>(0xff);  // symbol count
  damaged(bad, "count too large");
  bad = *good;
  bad[64] = static_cast<char>(0xff), bad[65] = static_cast<char>(0xff);  // first key after the second
  damaged(bad, "keys out of order");
  bad = *good;
  bad[64 + 5 * 4 + 3] = 0x7f;  // first name position far past the text
  damaged(bad, "name past the text");
  // F7 (issue 10): a header that claims no symbols and no modules is
  // consistent with its 64 bytes, but would blank every kernel frame.
  bad = good->substr(0, 64);
  for (int at : {40, 48, 56}) std::fill(bad.begin() + at, bad.begin() + at + 8, '\0');  // count, modules, bytes
  damaged(bad, "zero count");
  // A copy replaced since (another writer): same size, another inode.
  std::string text = *read_small_file(e.dir + "/kallsyms");
  write_file_atomic(e.dir + "/kallsyms", text);
  write_file_atomic(idx, *good);
  Lookups l = look_up(t / "cache");
  expect_names(l);
  EXPECT_TRUE(ends_with(l.file, "/kallsyms")) << "an index of another copy was used";
}

}  // namespace
}  // namespace sonde
