#include "record/signal_guard.h"

#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

#include "util/error.h"

namespace sonde::record {

// ignored_pipe_: a closed reader of `-o -` must turn into a write error,
// not a silent death.
SignalGuard::SignalGuard(bool own_signals, bool switch_signal) {
  if (!own_signals) {
    ::pthread_sigmask(SIG_BLOCK, nullptr, &old_);
    return;
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  if (switch_signal) sigaddset(&set, SIGUSR2);
  ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd_) {
    int e = errno;
    restore();
    throw_runtime("cannot create a signalfd: {}", errno_text(e));
  }
}

SignalGuard::~SignalGuard() {
  // Signals that came during the recording were the recording's to act on
  // (a second SIGTERM, as `timeout` sends to its whole process group):
  // left pending, the restored mask would deliver them at once and end
  // the process before its summary line.
  if (fd_)
    while (take() != 0) {
    }
  restore();
}

int SignalGuard::take() {
  signalfd_siginfo si{};
  if (::read(fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) return static_cast<int>(si.ssi_signo);
  return 0;
}

void SignalGuard::restore() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

}  // namespace sonde::record
