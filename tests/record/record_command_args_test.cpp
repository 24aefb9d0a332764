// `sonde record [OPTIONS] [--] CMD ARGS`: sonde's options end at the first
// word that is not one, as perf's do, so a command's own flags that look like
// sonde's (-a, -g, -c, -o, -p, -e, ...) reach the command, and never turn the
// recording into a system-wide one.
#include <gtest/gtest.h>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

// Flags of sonde record's own, each given to the command instead.
const std::vector<std::string> kCollidingArgs = {"-a", "-g", "-c", "CODE", "-o", "other.data", "-p", "1",
                                                 "-e", "cycles", "-F", "99", "-t", "1", "-C", "0",
                                                 "-m", "3", "-q", "--", "-z"};

class RecordCommandArgs : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_)); }

  // sh -c SCRIPT ARGS: writes every argument it got, one a line, then
  // becomes the hot loop (same pid), so the recording has samples.
  std::vector<std::string> command() const {
    std::vector<std::string> cmd = {"sh", "-c", "printf '%s\\n' \"$@\" > " + args_ + "; exec " + fixture_ + " 0.2",
                                    "sh"};
    cmd.insert(cmd.end(), kCollidingArgs.begin(), kCollidingArgs.end());
    return cmd;
  }

  void expect_only_the_command_recorded(const RunResult& r) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string expected;
    for (const auto& a : kCollidingArgs) expected += a + "\n";
    EXPECT_EQ(slurp(args_), expected);
    auto f = read_recording(data_);
    ASSERT_TRUE(f.opened) << f.open_error;
    ASSERT_GT(f.samples.size(), 0u);
    // One process: the command's (sh, then the hot loop in its place).
    uint32_t pid = f.samples.front().pid;
    EXPECT_EQ(f.samples_of_pid(pid), f.samples.size());
    for (const auto& m : f.mmap2) {
      if (m.pid != UINT32_MAX) {
        EXPECT_EQ(m.pid, pid) << m.filename;
      }
    }
    // Not sonde's -c/-e/-F: the default event at the default frequency.
    EXPECT_EQ(f.event_names, std::vector<std::string>{"cpu-clock"});
  }

  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "cmd.data";
  std::string args_ = dir_ / "args.txt";
};

TEST_F(RecordCommandArgs, OptionsAfterTheCommandAreTheCommands) {
  std::vector<std::string> argv = {sonde_bin(), "record", "-q", "-o", data_};
  for (const auto& a : command()) argv.push_back(a);
  expect_only_the_command_recorded(run(argv));
}

TEST_F(RecordCommandArgs, OptionsAfterDoubleDashAreTheCommands) {
  std::vector<std::string> argv = {sonde_bin(), "record", "-q", "-o", data_, "--"};
  for (const auto& a : command()) argv.push_back(a);
  expect_only_the_command_recorded(run(argv));
}

TEST_F(RecordCommandArgs, OptionsBeforeTheCommandAreSondes) {
  // -e and -F before the command are sonde's; -e takes one value, so the
  // command's name is not read as a second event.
  std::vector<std::string> argv = {sonde_bin(), "record", "-q", "-F", "999", "-o", data_, "-e", "task-clock",
                                   fixture_, "0.1"};
  auto r = run(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  EXPECT_EQ(f.event_names, std::vector<std::string>{"task-clock"});
  EXPECT_GT(f.samples.size(), 0u);
}

TEST_F(RecordCommandArgs, AnUnknownOptionBeforeTheCommandIsAUsageError) {
  auto r = run({sonde_bin(), "record", "-o", data_, "--no-such-option", fixture_, "0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("sonde: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
  EXPECT_FALSE(file_exists(data_));
}

}  // namespace
