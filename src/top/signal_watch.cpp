#include "top/signal_watch.h"

#include <sys/signalfd.h>

#include "util/error.h"

namespace sonde::top {

SignalWatch::SignalWatch() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH}) sigaddset(&set, sig);
  ::pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd_) {
    int e = errno;
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw_runtime("cannot create a signalfd: {}", errno_text(e));
  }
}

SignalWatch::~SignalWatch() { ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr); }

int SignalWatch::take() {
  signalfd_siginfo si{};
  if (::read(fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) return static_cast<int>(si.ssi_signo);
  return 0;
}

}  // namespace sonde::top
