// One reading policy (analysis/reading_outcome.h, docs/format.md "Broken
// input"): the same broken recording gives the same exit status and the
// same words from every reader subcommand — report, script, report
// --stats, sdt stats and convert. One real recording (CPU samples and SDT
// hits), then cut short, then with a malformed record in its middle.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The offset of the first record at or past `from` in a pipe-mode stream
// (16 bytes of header, then records of {u32 type, u16 misc, u16 size}).
size_t record_at_or_past(const std::string& stream, size_t from) {
  size_t at = 16;
  while (at + 8 <= stream.size() && at < from) {
    uint16_t size = 0;
    std::memcpy(&size, stream.data() + at + 6, 2);
    if (size < 8) break;
    at += size;
  }
  return at;
}

class ReadingPolicy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    const std::string forms = *dir_ / "forms";
    ASSERT_TRUE(compile_fixture("sdt_forms.c", forms, "-O2"));
    SavedEnv cache("SONDE_BUILDID_DIR", *dir_ / "cache");
    auto r = run({sonde_bin(), "record", "-q", "-e", "cpu-clock", "-e", "%sfix:*", "-o", whole(), "--", forms, "5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { dir_.reset(); }
  static std::string whole() { return *dir_ / "whole.data"; }

  // Each reader subcommand on `input`: its name (the prefix of its lines)
  // and argv.
  static std::vector<std::pair<std::string, std::vector<std::string>>> readers(const std::string& input) {
    const std::string out = *dir_ / "converted.folded";
    return {
        {"report", {sonde_bin(), "report", "-i", input}},
        {"report", {sonde_bin(), "report", "--stats", "-i", input}},
        {"script", {sonde_bin(), "script", "-i", input}},
        {"sdt stats", {sonde_bin(), "sdt", "stats", "-i", input, "%sfix:*"}},
        {"convert", {sonde_bin(), "convert", "-i", input, "--to", "folded", "-o", out}},
    };
  }

  static std::unique_ptr<TempDir> dir_;
};

std::unique_ptr<TempDir> ReadingPolicy::dir_;

TEST_F(ReadingPolicy, TheWholeRecordingReadsWithoutANote) {
  for (const auto& [name, argv] : readers(whole())) {
    SCOPED_TRACE(argv[1] + " " + argv[2]);
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("incomplete"), std::string::npos) << r.err;
  }
}

// A recorder killed mid-write: every complete record is used, one note, 0.
TEST_F(ReadingPolicy, AnIncompleteLastRecordIsTheSameNoteAndStatusEverywhere) {
  const std::string bytes = read_bytes(whole()), cut = *dir_ / "cut.data";
  write_bytes(cut, bytes.substr(0, bytes.size() - 5));
  const std::string note = ": the recording ends with an incomplete record; ignored its last ";
  std::optional<std::string> first;
  for (const auto& [name, argv] : readers(cut)) {
    SCOPED_TRACE(argv[1] + " " + argv[2]);
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(count_lines_with(r.err, note), 1u) << r.err;
    for (const auto& line : lines(r.err)) {
      if (line.find(note) == std::string::npos) continue;
      EXPECT_TRUE(line.starts_with("sonde " + name + note)) << line;
      const std::string words = line.substr(line.find(note));
      if (!first) first = words;
      EXPECT_EQ(words, *first);  // the same bytes counted, in the same words
    }
  }
}

// A malformed record before the end: what came before is used, then one
// error line `sonde: INPUT: REASON` and status 1, the same from everyone.
TEST_F(ReadingPolicy, AMalformedRecordIsTheSameErrorAndStatusEverywhere) {
  std::string bytes = read_bytes(whole());
  const size_t at = record_at_or_past(bytes, bytes.size() / 2);
  ASSERT_LT(at + 8, bytes.size());
  const uint16_t impossible = 4;  // smaller than a record's own header
  std::memcpy(bytes.data() + at + 6, &impossible, 2);
  const std::string bad = *dir_ / "bad.data";
  write_bytes(bad, bytes);
  std::filesystem::remove(*dir_ / "converted.folded");
  std::optional<std::string> first;
  for (const auto& [name, argv] : readers(bad)) {
    SCOPED_TRACE(argv[1] + " " + argv[2]);
    auto r = run(argv);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const auto err_lines = lines(r.err);
    ASSERT_FALSE(err_lines.empty());
    const std::string& last = err_lines.back().empty() && err_lines.size() > 1 ? err_lines[err_lines.size() - 2]
                                                                               : err_lines.back();
    EXPECT_TRUE(last.starts_with("sonde: " + bad + ": ")) << r.err;
    if (!first) first = last;
    EXPECT_EQ(last, *first) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(*dir_ / "converted.folded")) << "convert commits no output";
}

}  // namespace
