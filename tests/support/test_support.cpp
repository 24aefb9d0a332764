#include "support/test_support.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

namespace sonde::test {

namespace {
// Every sonde command a test runs keeps binaries in the build-id cache
// unless told otherwise: point it into the build tree so the suite never
// grows the real ~/.debug (a test that wants its own cache sets its own).
const bool kPrivateBuildIdCache = [] {
  std::string dir = std::string(SONDE_TEST_TMP) + "/buildid-cache";
  std::filesystem::create_directories(dir);
  setenv("SONDE_BUILDID_DIR", dir.c_str(), 0);
  return true;
}();
}  // namespace

RunResult run(const std::vector<std::string>& argv, const std::string& input) {
  RunResult res;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) return res;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    dprintf(2, "exec %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  size_t written = 0;
  if (input.empty()) {
    close(in_pipe[1]);
    in_pipe[1] = -1;
  } else {
    fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  }
  pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {in_pipe[1], POLLOUT, 0}};
  int open_outputs = 2;
  char buf[65536];
  while (open_outputs > 0) {
    int nfds = in_pipe[1] >= 0 ? 3 : 2;
    if (poll(fds, nfds, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP))) {
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          (i == 0 ? res.out : res.err).append(buf, static_cast<size_t>(n));
        } else {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_outputs;
        }
      }
    }
    if (in_pipe[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in_pipe[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == input.size()) {
        close(in_pipe[1]);
        in_pipe[1] = -1;
        fds[2].fd = -1;
      }
    }
  }
  if (in_pipe[1] >= 0) close(in_pipe[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return res;
}

RunResult sh(const std::string& command) { return run({"/bin/sh", "-c", command}); }

std::string sonde_bin() { return SONDE_BIN; }
std::string demo_bin() { return SONDE_DEMO_BIN; }
std::string fixtures_dir() { return SONDE_FIXTURES_DIR; }

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::filesystem::create_directories(SONDE_TEST_TMP);
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "t";
  for (auto& c : name)
    if (c == '/') c = '_';
  path_ = std::string(SONDE_TEST_TMP) + "/" + name + "." + std::to_string(getpid()) + "." + std::to_string(counter++);
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool compile_fixture(const std::string& source, const std::string& out, const std::string& flags) {
  auto r = sh("gcc -g -O1 -fno-omit-frame-pointer -o '" + out + "' '" + fixtures_dir() + "/" + source + "' " + flags);
  if (r.exit_code != 0) {
    ADD_FAILURE() << "compiling fixture " << source << " failed:\n" << r.err;
    return false;
  }
  return true;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

SavedEnv::SavedEnv(const char* name) : name_(name) {
  if (const char* v = ::getenv(name)) had_ = true, old_ = v;
}

SavedEnv::SavedEnv(const char* name, const std::string& value) : SavedEnv(name) { ::setenv(name, value.c_str(), 1); }

SavedEnv::~SavedEnv() {
  if (had_) ::setenv(name_, old_.c_str(), 1);
  else ::unsetenv(name_);
}

bool wait_until(const std::function<bool()>& happened, std::chrono::milliseconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (happened()) return true;
    if (std::chrono::steady_clock::now() > give_up) return false;
    // Short enough to see an event soon after it happens; long enough not
    // to take a CPU from what is awaited.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

size_t count_lines_with(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (const auto& l : lines(text))
    if (l.find(needle) != std::string::npos) ++n;
  return n;
}

std::string first_difference(const std::string& ours, const std::string& theirs) {
  auto a = lines(ours), b = lines(theirs);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string x = i < a.size() ? a[i] : "<end>", y = i < b.size() ? b[i] : "<end>";
    if (x != y)
      return "sonde " + std::to_string(a.size()) + " lines, perf " + std::to_string(b.size()) + "; first difference at line " +
             std::to_string(i + 1) + ":\nperf:  " + y + "\nsonde: " + x;
  }
  return "";
}

std::string without_bpf_programs(const std::string& text) {
  std::string out;
  for (const auto& l : lines(text))
    if (!l.starts_with("# bpf_prog_info ") && !l.starts_with("# \tsub_prog ") && !l.starts_with("# btf info of id "))
      out += l + "\n";
  return out;
}

}  // namespace sonde::test
