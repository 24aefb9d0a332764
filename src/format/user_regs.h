// The user registers a sample carries (PERF_SAMPLE_REGS_USER) on x86-64:
// the mask sonde records with --call-graph dwarf (perf's PERF_REGS_MASK: the
// general registers, without the DS/ES/FS/GS selectors) and how to find one
// register's value in a sample, whose registers come packed in mask order.
#pragma once

#include "format/uapi/perf_regs_x86.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace sonde::format {

inline constexpr uint64_t kUnwindRegsX86_64 =
    ((uint64_t{1} << PERF_REG_X86_64_MAX) - 1) &
    ~((uint64_t{1} << PERF_REG_X86_DS) | (uint64_t{1} << PERF_REG_X86_ES) | (uint64_t{1} << PERF_REG_X86_FS) |
      (uint64_t{1} << PERF_REG_X86_GS));
static_assert(kUnwindRegsX86_64 == 0xff0fff);

// Register `reg` (a perf_event_x86_regs value) of a sample recorded with
// `mask`; nullopt when the mask does not have it or the bytes are short.
inline std::optional<uint64_t> user_reg(std::span<const uint8_t> regs, uint64_t mask, int reg) {
  if (reg < 0 || reg >= 64 || !(mask & (uint64_t{1} << reg))) return std::nullopt;
  size_t index = static_cast<size_t>(std::popcount(mask & ((uint64_t{1} << reg) - 1)));
  if (regs.size() < (index + 1) * 8) return std::nullopt;
  uint64_t v;
  std::memcpy(&v, regs.data() + index * 8, 8);
  return v;
}

}  // namespace sonde::format
