#include "record/workload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "kernel/fatal_signals.h"
#include "util/error.h"

namespace sonde::record {

namespace {

bool is_executable(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string resolve_command(const std::string& argv0) {
  if (argv0.empty()) throw_usage("empty command");
  if (argv0.find('/') != std::string::npos) {
    if (!is_executable(argv0)) throw_runtime("cannot run '{}': not an executable file", argv0);
    return argv0;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t pos = 0;
  for (;;) {
    size_t c = dirs.find(':', pos);
    std::string d = dirs.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    std::string cand = (d.empty() ? "." : d) + "/" + argv0;
    if (is_executable(cand)) return cand;
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  throw_runtime("cannot run '{}': command not found", argv0);
}

Workload::~Workload() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

void Workload::start(const std::string& path, const std::vector<std::string>& argv, const sigset_t& child_mask,
                     bool stdout_is_stream) {
  int go[2], err[2];
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw_runtime("cannot create a pipe: {}", errno_text(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw_runtime("cannot fork: {}", errno_text(errno));
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::close(go[1]);
    ::close(err[0]);
    ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
    kernel::default_sigpipe_for_exec();
    if (stdout_is_stream) ::dup2(2, 1);
    char c;
    ssize_t n;
    do n = ::read(go[0], &c, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);  // the recorder gave up before starting us
    ::execv(path.c_str(), args.data());
    int e = errno;
    ssize_t w = ::write(err[1], &e, sizeof e);
    (void)w;
    ::_exit(127);
  }
  ::close(go[0]);
  ::close(err[1]);
  go_fd_.reset(go[1]);
  err_fd_.reset(err[0]);
  pid_ = pid;
  int pfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pfd >= 0) pidfd_.reset(pfd);
}

void Workload::go() {
  char c = 1;
  if (::write(go_fd_.get(), &c, 1) != 1) throw_runtime("cannot start the workload: {}", errno_text(errno));
  go_fd_.reset();
  // EOF on the CLOEXEC error pipe means exec succeeded.
  int e = 0;
  ssize_t n;
  do n = ::read(err_fd_.get(), &e, sizeof e);
  while (n < 0 && errno == EINTR);
  err_fd_.reset();
  if (n == sizeof e) {
    reap();
    throw_runtime("cannot run the workload: {}", errno_text(e));
  }
}

void Workload::record_status(int status) {
  reaped_ = true;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool Workload::try_reap() {
  if (pid_ <= 0 || reaped_) return reaped_;
  int st = 0;
  pid_t r = ::wait4(pid_, &st, WNOHANG, &usage_);
  if (r == pid_) record_status(st);
  return reaped_;
}

void Workload::reap() {
  if (pid_ <= 0 || reaped_) return;
  int st = 0;
  pid_t r;
  do r = ::wait4(pid_, &st, 0, &usage_);
  while (r < 0 && errno == EINTR);
  if (r == pid_) record_status(st);
  else reaped_ = true;
}

void Workload::kill(int sig) {
  if (running()) ::kill(pid_, sig);
}

}  // namespace sonde::record
