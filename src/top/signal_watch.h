// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGWINCH as readable events for
// `sonde top`'s poll loop: blocked in the calling thread (and so in every
// thread it starts afterwards: the recorder and the reader) and read from a
// signalfd, so that every way out goes through the loop's normal return and
// its destructors (the terminal restored, the events closed). SIGPIPE is
// ignored: a closed reader of --stdio becomes a write error.
#pragma once

#include <signal.h>

#include "kernel/fatal_signals.h"
#include "util/fd.h"

namespace sonde::top {

class SignalWatch {
 public:
  SignalWatch();
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  int fd() const { return fd_.get(); }
  // The next pending signal, 0 if none.
  int take();

 private:
  kernel::IgnoredSigpipe ignored_pipe_;
  sigset_t old_mask_{};
  UniqueFd fd_;
};

}  // namespace sonde::top
