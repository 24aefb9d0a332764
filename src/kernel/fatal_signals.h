// Signal dispositions are process-wide: they are set here (or in cli/),
// never elsewhere in the library (ctest SourceRules.process-state).
//  - SIGINT, SIGTERM, SIGHUP: the CLI installs, at start-up, a handler that
//    removes the temporary files listed in util/signal_cleanup.h
//    (AtomicFile's remove_on_signal), then lets the signal do what it did
//    before. A signal that is ignored (as SIGHUP under nohup) stays ignored.
//  - SIGPIPE: ignored while an IgnoredSigpipe lives (a recorder writing to
//    a pipe: a closed reader is a write error, not a silent death).
//  - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: while a CrashHook lives, an
//    async-signal-safe function runs first (a raw terminal restored).
#pragma once

#include <signal.h>

namespace sonde::kernel {

// Installs the handler once (later calls do nothing).
void remove_listed_files_on_fatal_signals();

class IgnoredSigpipe {
 public:
  IgnoredSigpipe();
  ~IgnoredSigpipe();
  IgnoredSigpipe(const IgnoredSigpipe&) = delete;
  IgnoredSigpipe& operator=(const IgnoredSigpipe&) = delete;

 private:
  sighandler_t old_ = SIG_DFL;
};

// In a forked child, before it execs a program: SIGPIPE back to its
// default (an IgnoredSigpipe of the parent would be inherited across exec).
// Async-signal-safe.
void default_sigpipe_for_exec();

// One hook at a time; `hook` must be async-signal-safe.
class CrashHook {
 public:
  explicit CrashHook(void (*hook)());
  ~CrashHook();
  CrashHook(const CrashHook&) = delete;
  CrashHook& operator=(const CrashHook&) = delete;
};

}  // namespace sonde::kernel
