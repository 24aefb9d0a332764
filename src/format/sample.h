// A decoded PERF_RECORD_SAMPLE and the sample_id trailer of other records.
// Decoding never allocates: variable parts are views into the record bytes,
// which may be unaligned (read them through the accessors).
#pragma once

#include <cstdint>
#include <span>

#include "util/byte_reader.h"

namespace sonde::format {

struct EventInfo;

struct SampleId {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t id = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0;
};

struct Sample {
  const EventInfo* event = nullptr;
  uint16_t misc = 0;
  uint64_t id = 0;
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;
  uint64_t addr = 0;
  uint64_t stream_id = 0;
  uint32_t cpu = 0;
  uint64_t period = 1;
  std::span<const uint8_t> callchain;  // nr u64 entries, unaligned
  std::span<const uint8_t> raw;        // RAW payload (tracepoint fields)
  uint64_t regs_abi = 0;
  std::span<const uint8_t> regs_user;  // popcount(sample_regs_user) u64s
  std::span<const uint8_t> stack_user;
  uint64_t stack_dyn_size = 0;
  uint32_t stack_user_at = 0;  // where STACK_USER's size field is, in the body (after the header)

  size_t callchain_size() const { return callchain.size() / 8; }
  uint64_t callchain_at(size_t i) const { return load<uint64_t>(callchain.data() + 8 * i); }
  uint16_t cpumode() const { return misc & 7; }
};

}  // namespace sonde::format
