// The recorder's signals: SIGINT/SIGTERM/SIGCHLD (and SIGUSR2 with
// --switch-output) blocked for the recording and read from a signalfd in
// the poll set; SIGPIPE ignored (kernel::IgnoredSigpipe), so a closed
// reader of `-o -` is a write error. Everything is restored when the guard
// goes. The mask is the recording thread's for the recording's length only:
// this is the one place the recorder touches it.
#pragma once

#include <signal.h>

#include "kernel/fatal_signals.h"
#include "util/fd.h"

namespace sonde::record {

// Blocks SIGINT/SIGTERM/SIGCHLD (and SIGUSR2 with --switch-output) for the
// recording and delivers them through a signalfd in the poll set: no
// handler, no race between a check and poll(). With `own_signals` false
// (RecordOptions::stop_fd: the caller owns them) only SIGPIPE is set.
class SignalGuard {
 public:
  SignalGuard(bool own_signals, bool switch_signal);
  ~SignalGuard();
  int fd() const { return fd_.get(); }  // -1 without own_signals
  const sigset_t& old_mask() const { return old_; }
  // The next pending signal, 0 if none.
  int take();

 private:
  void restore();

  kernel::IgnoredSigpipe ignored_pipe_;
  sigset_t old_{};
  UniqueFd fd_;
};

}  // namespace sonde::record
