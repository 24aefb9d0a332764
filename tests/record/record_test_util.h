// Helpers shared by the recorder's tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "elf/vdso.h"
#include "support/test_support.h"

namespace sonde::test {

inline bool file_exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

// The build-id that `readelf -n` prints for a file.
inline std::string readelf_build_id(const std::string& path) {
  auto r = run({"readelf", "-n", path});
  std::smatch m;
  std::regex re("Build ID: ([0-9a-f]+)");
  if (std::regex_search(r.out, m, re)) return m[1];
  return "";
}

// readelf's view of this process's vdso (a 64-bit process, as the
// fixtures are), written out to a file: the id sonde must put on [vdso].
inline std::string readelf_vdso_build_id() {
  auto image = sonde::own_vdso();
  if (image.empty()) return "";
  TempDir dir;
  std::string path = dir / "vdso.so";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), image.size());
  return readelf_build_id(path);
}

// Starts argv in the background with stdout/stderr sent to files, and
// returns once it has exec'ed (a close-on-exec pipe closes then): callers
// wait on that event, not on a sleep, before they look at the process.
inline pid_t spawn(const std::vector<std::string>& argv, const std::string& out = "/dev/null",
                   const std::string& err = "/dev/null") {
  int exec_pipe[2];
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(exec_pipe[0]);
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    [[maybe_unused]] auto n = ::write(exec_pipe[1], "x", 1);  // exec failed
    ::_exit(127);
  }
  ::close(exec_pipe[1]);
  char c;
  while (::read(exec_pipe[0], &c, 1) < 0 && errno == EINTR) {
  }
  ::close(exec_pipe[0]);
  return pid;
}

// Waits for a child; returns its exit status, or 128+signal.
inline int wait_for(pid_t pid) {
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// A process's command name (/proc/PID/comm), "" once it is gone.
inline std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

// Whether a child of `parent` runs `comm` (it has exec'ed it).
inline bool child_running(pid_t parent, const std::string& comm) {
  std::ifstream in("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
  for (pid_t child; in >> child;)
    if (comm_of(child) == comm) return true;
  return false;
}

inline std::string slurp(const std::string& path) {
  auto r = run({"cat", path});
  return r.out;
}

// perf script's complaints: anything that says warning, error or failed.
inline bool has_perf_complaint(const std::string& err) {
  static const std::regex re("(warn|Warn|WARN|error|Error|failed|unexpected|out of order)");
  return std::regex_search(err, re);
}

}  // namespace sonde::test
