#include "kernel/fatal_signals.h"

#include <signal.h>

#include <iterator>
#include <mutex>

#include "util/signal_cleanup.h"

namespace sonde::kernel {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Static storage: the handler must not allocate or lock.
struct sigaction g_previous[std::size(kSignals)];

void on_fatal_signal(int sig) {
  signal_cleanup::unlink_listed();
  // Then what the signal did before (usually: end the process). It is
  // blocked while this handler runs, so it arrives on return.
  for (size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  ::raise(sig);
}

void install_handler() {
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction previous {};
    ::sigaction(kSignals[i], nullptr, &previous);
    g_previous[i] = previous;
    if (previous.sa_handler == SIG_IGN) continue;  // nohup's SIGHUP stays ignored
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(kSignals[i], &sa, nullptr);
  }
}

}  // namespace

void remove_listed_files_on_fatal_signals() {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
}

void default_sigpipe_for_exec() { ::signal(SIGPIPE, SIG_DFL); }

IgnoredSigpipe::IgnoredSigpipe() : old_(::signal(SIGPIPE, SIG_IGN)) {}

IgnoredSigpipe::~IgnoredSigpipe() { ::signal(SIGPIPE, old_); }

namespace {

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
void (*volatile g_crash_hook)() = nullptr;

void on_crash(int sig) {
  if (auto hook = g_crash_hook) hook();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

CrashHook::CrashHook(void (*hook)()) {
  g_crash_hook = hook;
  for (int sig : kCrashSignals) ::signal(sig, on_crash);
}

CrashHook::~CrashHook() {
  for (int sig : kCrashSignals) ::signal(sig, SIG_DFL);
  g_crash_hook = nullptr;
}

}  // namespace sonde::kernel
