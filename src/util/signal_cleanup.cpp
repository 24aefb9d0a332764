#include "util/signal_cleanup.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace sonde::signal_cleanup {

namespace {

constexpr int kSlots = 16;

enum SlotState : int { kFree, kFilling, kArmed };

// Static storage: the handler must not allocate or lock.
char g_paths[kSlots][PATH_MAX];
std::atomic<int> g_state[kSlots];

}  // namespace

int add(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
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

void unlink_listed() {
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load() == kArmed) ::unlink(g_paths[i]);
}

}  // namespace sonde::signal_cleanup
