// sonde annotate's bad inputs: one line on stderr and sonde's exit codes
// (2: usage, nothing read; 1: the recording cannot give what was asked).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class AnnotateErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(compile_fixture("annotate_loop.c", bin_, "-O0"));
    auto rec = run({sonde_bin(), "record", "-q", "-N", "-F", "1000", "-o", data_, "--", bin_, "300"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
  }
  RunResult annotate(std::vector<std::string> extra) {
    std::vector<std::string> argv = {sonde_bin(), "annotate", "-i", data_, "--buildid-dir", dir_ / "cache"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv);
  }
  static void expect_one_line(const RunResult& r, int code, const std::string& needle) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
  TempDir dir_;
  std::string bin_ = dir_ / "annotate_loop";
  std::string data_ = dir_ / "r.data";
};

}  // namespace

TEST_F(AnnotateErrors, SymbolNotInTheRecording) {
  auto r = annotate({"no_such_function"});
  expect_one_line(r, 1, "sonde: annotate: no samples in a symbol named 'no_such_function'");
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto skipped = annotate({"--skip-missing", "no_such_function"});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
}

// A list option takes one value per occurrence, as perf's: the symbol
// after `--debug-dir D` or `-d OBJ` is the symbol to annotate, not a second
// directory or object (it used to be swallowed, and nothing was printed).
TEST_F(AnnotateErrors, ASymbolAfterAListOptionIsTheSymbol) {
  // caller(), not the hottest symbol: a swallowed name would annotate
  // every symbol instead, hot_loop() first.
  auto plain = annotate({"caller"});
  ASSERT_EQ(plain.out.find("hot_loop"), std::string::npos) << plain.out;
  for (const auto& list_option : std::vector<std::vector<std::string>>{
           {"--debug-dir", dir_ / "nodebug", "caller"}, {"-d", "annotate_loop", "caller"}}) {
    auto r = annotate(list_option);
    EXPECT_EQ(r.exit_code, plain.exit_code) << list_option[0] << ": " << r.err;
    EXPECT_EQ(r.out, plain.out) << list_option[0];
  }
}

TEST_F(AnnotateErrors, BadOptionsAreUsageErrors) {
  expect_one_line(annotate({"--percent-type", "local"}), 2, "--percent-type: 'local' is not");
  expect_one_line(annotate({"-M", "arm"}), 2, "-M: 'arm' is not att or intel");
  expect_one_line(annotate({"--percent-limit", "120"}), 2, "--percent-limit");
  auto missing = run({sonde_bin(), "annotate", "-i", dir_ / "none.data"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_EQ(lines(missing.err).size(), 1u) << missing.err;
}

TEST_F(AnnotateErrors, ObjectNotFoundSaysWhereItLooked) {
  std::filesystem::rename(bin_, dir_ / "moved");
  auto r = annotate({"hot_loop"});
  // Without the binary there is no symbol either: the samples' object is
  // named, with every place it was looked for.
  expect_one_line(r, 1, "annotate_loop");
  EXPECT_NE(r.err.find("not found (looked in the build-id cache " + (dir_ / "cache") + ", /proc/"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/root" + bin_ + ", " + bin_ + ")"), std::string::npos) << r.err;
}

TEST_F(AnnotateErrors, BuildIdMismatchIsNamed) {
  // Another build at the same path: different code, different build-id.
  ASSERT_TRUE(compile_fixture("annotate_loop.c", bin_, "-O1"));
  auto r = annotate({"hot_loop"});
  expect_one_line(r, 1, "build-id mismatch");
}

TEST_F(AnnotateErrors, AllSymbolsModeSkipsWhatCannotBeAnnotatedWithANote) {
  std::filesystem::rename(bin_, dir_ / "moved");
  auto r = annotate({});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}
