#include "util/signal_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace sonde::signal_cleanup {

namespace {

constexpr int kSlots = 16;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

enum SlotState : int { kFree, kFilling, kArmed };

// Static storage: the handler must not allocate or lock.
char g_paths[kSlots][PATH_MAX];
std::atomic<int> g_state[kSlots];
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];

void on_fatal_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load() == kArmed) ::unlink(g_paths[i]);
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

int add(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_state[i].compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_state[i].store(kArmed);
    return i;
  }
  return -1;
}

void remove(int slot) {
  if (slot >= 0 && slot < kSlots) g_state[slot].store(kFree);
}

}  // namespace sonde::signal_cleanup
