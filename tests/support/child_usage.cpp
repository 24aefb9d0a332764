#include "support/child_usage.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sonde::test {

namespace {

std::string slurp_fd(int fd) {
  std::string s;
  char buf[65536];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  return s;
}

// The input end for the child's stdin; -1 when it cannot be made.
int stdin_fd(const ChildInput& in) {
  if (in.kind == ChildInput::kNone) return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in.kind == ChildInput::kFile) return ::open(in.path.c_str(), O_RDONLY | O_CLOEXEC);
  std::ifstream f(in.path, std::ios::binary);
  std::stringstream bytes;
  bytes << f.rdbuf();
  const std::string data = bytes.str();
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return -1;
  ::fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
  // The whole input fits in the pipe, so it is written before the child runs.
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(p[1], data.data() + done, data.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(p[1]);
  return p[0];
}

}  // namespace

ChildUsage run_measured(const std::vector<std::string>& argv, const ChildInput& in, int cpu_seconds) {
  ChildUsage res;
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  const int in_fd = stdin_fd(in);
  if (!out || !err || in_fd < 0) {
    res.err = "cannot set up the child's input or output";
    return res;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in_fd, 0);
    ::dup2(::fileno(out), 1);
    ::dup2(::fileno(err), 2);
    rlimit cpu{static_cast<rlim_t>(cpu_seconds), static_cast<rlim_t>(cpu_seconds)};
    ::setrlimit(RLIMIT_CPU, &cpu);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::dprintf(2, "exec %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(in_fd);
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  res.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  res.max_rss_kib = ru.ru_maxrss;
  res.out = slurp_fd(::fileno(out));
  res.err = slurp_fd(::fileno(err));
  std::fclose(out);
  std::fclose(err);
  return res;
}

std::string unclean_outcome(const ChildUsage& r) {
  std::vector<std::string> errors;  // "sonde: " lines that are not warnings
  std::string last;
  size_t at = 0;
  while (at < r.err.size()) {
    size_t nl = r.err.find('\n', at);
    std::string line = r.err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    at = nl == std::string::npos ? r.err.size() : nl + 1;
    if (line.starts_with("sonde: ") && !line.starts_with("sonde: warning")) errors.push_back(line);
    last = line;
  }
  std::string why;
  if (r.signal != 0)
    why = "killed by signal " + std::to_string(r.signal);
  else if (r.exit_code != 0 && r.exit_code != 1)
    why = "exit status " + std::to_string(r.exit_code);
  else if (r.exit_code == 0 && !errors.empty())
    why = "status 0 with an error line";
  else if (r.exit_code == 1 && (errors.size() != 1 || errors[0] != last))
    why = "status 1 without exactly one error line, last";
  return why.empty() ? why : why + "; stderr:\n" + r.err;
}

long small_input_rss_limit_kib() {
#if defined(__SANITIZE_ADDRESS__)
  return 256 << 10;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return 256 << 10;
#endif
#endif
  return 48 << 10;
}

}  // namespace sonde::test
