// CLOCK_MONOTONIC in nanoseconds: the clock sonde's recordings are timed on
// (perf's -k mono), read by the recorder's drains and the off-CPU extension.
#pragma once

#include <time.h>

#include <cstdint>

namespace sonde {

inline uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace sonde
