#include <gtest/gtest.h>

#include <regex>

#include "elf/build_id.h"
#include "support/test_support.h"

namespace {

// The build-id that `readelf -n` prints for a file.
std::string readelf_build_id(const std::string& path) {
  auto r = sonde::test::run({"readelf", "-n", path});
  std::smatch m;
  std::regex re("Build ID: ([0-9a-f]+)");
  if (std::regex_search(r.out, m, re)) return m[1];
  return "";
}

}  // namespace

TEST(BuildId, MatchesReadelfForExecutablesAndLibraries) {
  for (std::string path : {sonde::test::demo_bin(), std::string("/usr/bin/perf"),
                           std::string("/lib/x86_64-linux-gnu/libc.so.6")}) {
    auto expected = readelf_build_id(path);
    ASSERT_FALSE(expected.empty()) << path;
    auto got = sonde::read_build_id(path);
    ASSERT_TRUE(got.has_value()) << path;
    EXPECT_EQ(got->hex(), expected) << path;
  }
}

TEST(BuildId, KernelNotesHaveABuildId) {
  auto id = sonde::read_build_id_from_notes_file("/sys/kernel/notes");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->size, 20);
}

TEST(BuildId, NonElfAndMissingFilesHaveNone) {
  sonde::test::TempDir dir;
  sonde::test::sh("echo hello > " + (dir / "text"));
  EXPECT_FALSE(sonde::read_build_id(dir / "text").has_value());
  EXPECT_FALSE(sonde::read_build_id(dir / "missing").has_value());
}

TEST(BuildId, HexRoundTripAndRejectsGarbage) {
  auto b = sonde::BuildId::from_hex("00ff10ab");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->hex(), "00ff10ab");
  EXPECT_FALSE(sonde::BuildId::from_hex("xyz0"));
  EXPECT_FALSE(sonde::BuildId::from_hex("abc"));
  EXPECT_FALSE(sonde::BuildId::from_hex("../../etc"));
}
