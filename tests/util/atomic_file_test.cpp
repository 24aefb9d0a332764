// AtomicFile: the target appears whole on commit, and nothing is left
// behind otherwise (destruction, or a fatal signal).
#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernel/fatal_signals.h"
#include "support/test_support.h"
#include "util/error.h"
#include "util/fs.h"

namespace sonde {
namespace {

namespace fs = std::filesystem;

size_t entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicFile, CommitRenamesOntoTheTarget) {
  test::TempDir t;
  std::string target = t / "out.txt";
  {
    AtomicFile f(target);
    EXPECT_NE(f.temp_path(), target);
    EXPECT_EQ(fs::path(f.temp_path()).parent_path(), fs::path(target).parent_path());
    EXPECT_NE(f.temp_path().find("out.txt.tmp."), std::string::npos) << f.temp_path();
    f.write("hello ");
    f.write("world");
    EXPECT_FALSE(fs::exists(target));
    f.commit();
    EXPECT_TRUE(f.committed());
  }
  EXPECT_EQ(slurp(target), "hello world");
  EXPECT_EQ(entries(t.path()), 1u);
}

TEST(AtomicFile, ReplacesAnExistingTarget) {
  test::TempDir t;
  std::string target = t / "out.txt";
  write_file_atomic(target, "old");
  write_file_atomic(target, "new");
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(entries(t.path()), 1u);
}

TEST(AtomicFile, UncommittedFileIsRemoved) {
  test::TempDir t;
  std::string temp;
  {
    AtomicFile f(t / "out.txt");
    temp = f.temp_path();
    f.write("partial");
    EXPECT_TRUE(fs::exists(temp));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(entries(t.path()), 0u);
}

TEST(AtomicFile, MovedFileIsRemovedOnceByItsLastOwner) {
  test::TempDir t;
  std::optional<AtomicFile> later;
  {
    AtomicFile f(t / "out.txt", {.readable = true});
    later.emplace(std::move(f));
  }
  EXPECT_EQ(entries(t.path()), 1u);  // the moved-from one removed nothing
  later->write("x");
  later->commit();
  EXPECT_EQ(slurp(t / "out.txt"), "x");
}

TEST(AtomicFile, HiddenNameStreamAndUmaskMode) {
  test::TempDir t;
  std::string target = t / "profile.pb";
  mode_t mask = ::umask(022);
  {
    AtomicFile f(target, {.temp_name = AtomicFile::TempName::Hidden});
    EXPECT_EQ(fs::path(f.temp_path()).filename().string().rfind(".profile.pb.sonde-", 0), 0u) << f.temp_path();
    std::string big(200000, 'z');  // more than the stream's buffer
    f.stream() << "head " << big;
    f.commit();
  }
  ::umask(mask);
  EXPECT_EQ(slurp(target).size(), 5u + 200000u);
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(AtomicFile, ErrorsNameTheFile) {
  try {
    AtomicFile f("/proc/no/such/dir/x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create /proc/no/such/dir/x.tmp."), std::string::npos) << e.what();
  }
  try {
    AtomicFile f("/proc/no/such/dir/x", {.temp_name = AtomicFile::TempName::Hidden});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create an output file in /proc/no/such/dir: "), std::string::npos)
        << e.what();
  }
}

TEST(AtomicFile, RenameFailureKeepsTheTargetAndCleansUp) {
  test::TempDir t;
  fs::create_directory(t / "dir");
  fs::create_directory(t / "dir/sub");  // a non-empty folder: rename onto it fails
  {
    AtomicFile f(t / "dir");
    EXPECT_FALSE(f.try_commit());
    EXPECT_THROW(f.commit(), Error);
  }
  EXPECT_EQ(entries(t.path()), 1u);
}

// A signal that ends the process removes the temporary file.
TEST(AtomicFile, FatalSignalRemovesTheTemporaryFile) {
  test::TempDir t;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(ready[0]);
      kernel::remove_listed_files_on_fatal_signals();  // as the CLI does at start-up
      AtomicFile f(t / "out.txt", {.temp_name = AtomicFile::TempName::Hidden, .remove_on_signal = true});
      f.write("partial");
      (void)!::write(ready[1], "x", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    EXPECT_EQ(entries(t.path()), 1u);
    ::kill(child, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_EQ(entries(t.path()), 0u) << "signal " << sig;
  }
}

}  // namespace
}  // namespace sonde
