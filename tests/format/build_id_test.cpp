#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <vector>

#include "elf/build_id.h"
#include "elf/vdso.h"
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

// An image in memory (the vdso) is read like the file it was mapped from;
// every cut of it is either read whole or refused, never read past its end.
TEST(BuildId, InMemoryImageMatchesTheFileAndCutImagesAreRefused) {
  std::string path = sonde::test::demo_bin();
  auto bytes = sonde::test::sh("cat " + path).out;  // the whole file
  std::vector<uint8_t> image(bytes.begin(), bytes.end());
  ASSERT_GT(image.size(), 4096u);
  auto got = sonde::read_build_id(std::span<const uint8_t>(image));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->hex(), readelf_build_id(path));
  for (size_t cut : {size_t{0}, size_t{3}, size_t{63}, size_t{64}, size_t{200}, size_t{700}}) {
    auto part = sonde::read_build_id(std::span<const uint8_t>(image.data(), cut));
    EXPECT_FALSE(part.has_value()) << "cut at " << cut;
  }
}

TEST(BuildId, ThisProcessVdsoMatchesReadelf) {
  auto image = sonde::own_vdso();
  ASSERT_FALSE(image.empty());
  sonde::test::TempDir dir;
  std::string path = dir / "vdso.so";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), image.size());
  auto want = readelf_build_id(path);
  ASSERT_EQ(want.size(), 40u);
  auto got = sonde::read_build_id(image);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->hex(), want);
  // Read back from this process as the recorder reads a target.
  std::vector<uint8_t> scratch;
  auto start = reinterpret_cast<uintptr_t>(image.data());
  auto via_pid = sonde::process_vdso_build_id(getpid(), start, image.size(), scratch);
  ASSERT_TRUE(via_pid.has_value());
  EXPECT_EQ(via_pid->hex(), want);
  // A process that does not exist falls back to this kernel's image of the
  // same length, and to nothing for another length.
  EXPECT_EQ(sonde::process_vdso_build_id(0, start, image.size(), scratch)->hex(), want);
  EXPECT_FALSE(sonde::process_vdso_build_id(0, start, image.size() + 4096, scratch).has_value());
  EXPECT_FALSE(sonde::read_process_vdso(getpid(), start, sonde::kMaxVdsoBytes + 4096, scratch));
}
