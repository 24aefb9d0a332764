// Descriptors shown with their files (perf trace's `fd: 3</dev/null>`):
// what FdPaths learns from open, dup and close calls, what it reads from
// /proc only while live, and how the arguments carry the path.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "trace/arg_format.h"
#include "trace/fd_paths.h"

namespace sonde::trace {
namespace {

const uint32_t kPid = static_cast<uint32_t>(::getpid());

TEST(FdPaths, LiveReadsProcTheFirstTimeAndForgetsOnClose) {
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  FdPaths live("/proc");
  const std::string* path = live.find(kPid, fd);
  ASSERT_NE(path, nullptr);
  EXPECT_EQ(*path, "/dev/null");
  ::close(fd);
  EXPECT_NE(live.find(kPid, fd), nullptr) << "kept until the traced close is seen";
  live.closed(kPid, fd);
  EXPECT_EQ(live.find(kPid, fd), nullptr) << "closed, and /proc no longer has it";
  EXPECT_EQ(live.find(kPid, -1), nullptr);
  EXPECT_EQ(live.find(kPid, int64_t{1} << 40), nullptr) << "not an int: not a descriptor";
}

TEST(FdPaths, ReplayKnowsOnlyWhatTheRecordingsCallsSaid) {
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  FdPaths replay("");
  EXPECT_EQ(replay.find(kPid, fd), nullptr) << "a replay reads no /proc";
  replay.opened(kPid, 7, "/etc/hostname");
  ASSERT_NE(replay.find(kPid, 7), nullptr);
  EXPECT_EQ(*replay.find(kPid, 7), "/etc/hostname");
  EXPECT_EQ(replay.find(kPid + 1, 7), nullptr) << "descriptors are per process";
  replay.duplicated(kPid, 7, 1);
  ASSERT_NE(replay.find(kPid, 1), nullptr);
  EXPECT_EQ(*replay.find(kPid, 1), "/etc/hostname");
  replay.opened(kPid, 7, "relative/name");
  ASSERT_NE(replay.find(kPid, 7), nullptr);
  EXPECT_EQ(*replay.find(kPid, 7), "relative/name") << "as the program gave it when /proc cannot resolve it";
  replay.closed(kPid, 7);
  EXPECT_EQ(replay.find(kPid, 7), nullptr);
  ::close(fd);
}

TEST(FdPaths, LiveResolvesARelativeOpenThroughProc) {
  int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  FdPaths live("/proc");
  live.opened(kPid, fd, "null");  // as if opened relative to /dev
  ASSERT_NE(live.find(kPid, fd), nullptr);
  EXPECT_EQ(*live.find(kPid, fd), "/dev/null");
  ::close(fd);
}

TEST(FdPaths, ArgumentsCarryThePathAsPerfPrintsIt) {
  SyscallSignature write{"write",
                         {{"fd", "unsigned int", false}, {"buf", "const char *", true}, {"count", "size_t", false}},
                         true};
  SyscallSignature openat{"openat", {{"dfd", "int", false}, {"filename", "const char *", true}}, true};
  SyscallSignature mmap{"mmap", {{"addr", "unsigned long", false}, {"fd", "unsigned long", false}}, true};
  auto none = [](uint32_t) { return std::string_view{}; };
  const std::string null_path = "/dev/null", dir = "/tmp";
  FdLookup lookup = [&](int64_t fd) -> const std::string* {
    return fd == 3 ? &null_path : fd == 4 ? &dir : nullptr;
  };
  const uint64_t w[6] = {3, 0x1000, 10, 0, 0, 0};
  EXPECT_EQ(format_args(write, w, none, nullptr, lookup), "fd: 3</dev/null>, buf: 0x1000, count: 10");
  const uint64_t w5[6] = {5, 0x1000, 10, 0, 0, 0};
  EXPECT_EQ(format_args(write, w5, none, nullptr, lookup), "fd: 5, buf: 0x1000, count: 10") << "unknown: the number";
  const uint64_t o_cwd[6] = {static_cast<uint64_t>(-100), 0x1234, 0, 0, 0, 0};
  EXPECT_EQ(format_args(openat, o_cwd, none, nullptr, lookup), "dfd: CWD, filename: 0x1234");
  const uint64_t o_dir[6] = {4, 0x1234, 0, 0, 0, 0};
  EXPECT_EQ(format_args(openat, o_dir, none, nullptr, lookup), "dfd: 4</tmp>, filename: 0x1234");
  const uint64_t m[6] = {0x1000, 3, 0, 0, 0, 0};
  EXPECT_EQ(format_args(mmap, m, none, nullptr, lookup), "addr: 0x1000, fd: 3")
      << "mmap's fd is an unsigned long in the kernel's format: perf's rule leaves it a number";
  EXPECT_EQ(format_args(write, w, none), "fd: 3, buf: 0x1000, count: 10") << "no lookup: no path";
}

}  // namespace
}  // namespace sonde::trace
