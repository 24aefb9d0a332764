// The SAMPLE records of off-CPU time, built by the recorder (not the
// kernel): one per long block or per flushed (thread, stacks, kind) sum.
// Their attr is a software bpf-output event named `offcpu-time` (blocked)
// or `offcpu-time:preempt` (runnable, waiting for a CPU), as perf names its
// own off-CPU event; the period is the off-CPU nanoseconds and the call
// chain holds the kernel frames then the user frames, behind perf's
// context markers. docs/format.md and docs/offcpu.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "format/features.h"
#include "format/offcpu_event.h"
#include "format/uapi/perf_event.h"
#include "offcpu/offcpu_abi.h"

namespace sonde::offcpu {

// What every off-CPU sample holds, in the kernel's field order.
inline constexpr uint64_t kOffcpuSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                              PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                              PERF_SAMPLE_CALLCHAIN;

// Event ids in the stream: far above kernel ids, apart from SDT's (1 << 62 + probe).
inline constexpr uint64_t kOffcpuBlockedId = 3ULL << 61;
inline constexpr uint64_t kOffcpuPreemptId = kOffcpuBlockedId + 1;
inline constexpr std::string_view kOffcpuBlockedName = format::kOffcpuBlockedEvent;
inline constexpr std::string_view kOffcpuPreemptName = format::kOffcpuPreemptEvent;

// With --call-graph dwarf (the recorder's events copy user stacks) off-CPU
// samples carry the user registers and stack of the switch-out too, in
// perf's layout, for unwinding at report time.
inline constexpr uint64_t kOffcpuDwarfSampleType = kOffcpuSampleType | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

// The attr of both events: the recorder's first event's sample_id layout
// (IDENTIFIER, TID, TIME, CPU) and clock, kOffcpuSampleType; when `base`
// copies user stacks (sample_stack_user), kOffcpuDwarfSampleType with
// perf's register mask and at most SONDE_OFFCPU_STACK_MAX stack bytes.
perf_event_attr offcpu_attr(const perf_event_attr& base);
// The two HEADER_ATTR entries (blocked, preempt).
std::vector<format::EventDesc> offcpu_event_descs(const perf_event_attr& base);

struct OffcpuSample {
  uint64_t id = kOffcpuBlockedId;
  uint32_t pid = 0, tid = 0, cpu = 0;
  uint64_t time = 0;  // CLOCK_MONOTONIC ns: the end of the block, or the flush
  uint64_t ns = 0;    // the period
  std::span<const uint64_t> kernel;  // innermost first
  std::span<const uint64_t> user;
  // The attr has kOffcpuDwarfSampleType. A sample with a user stack copy
  // (`regs`: SONDE_OFFCPU_NREGS u64s, `stack`) leaves the user frames to
  // the unwinder, as perf's dwarf samples do; one without (a sum) keeps
  // its frame-pointer frames and says it has no registers.
  bool dwarf_layout = false;
  std::span<const uint8_t> regs;
  std::span<const uint8_t> stack;
};

// Frames of one call chain (kernel and user together), as the kernel's
// default perf_event_max_stack.
inline constexpr size_t kMaxChainFrames = 127;
// The largest record build_offcpu_sample writes: without, then with the
// user registers and stack of --call-graph dwarf.
inline constexpr size_t kOffcpuChainSampleMax = 8 + 7 * 8 + (2 + kMaxChainFrames) * 8;
inline constexpr size_t kOffcpuSampleMax =
    kOffcpuChainSampleMax + 8 * (1 + SONDE_OFFCPU_NREGS) + 8 * 2 + SONDE_OFFCPU_STACK_MAX;
static_assert(kOffcpuSampleMax <= UINT16_MAX);

// Writes the SAMPLE into `out` (at least kOffcpuSampleMax bytes; the user
// frames beyond 127 in all are dropped, outermost first) and returns its size. IP is the
// innermost frame (the kernel's, where the thread left the CPU), as in a
// kernel sample with a call chain.
size_t build_offcpu_sample(std::span<uint8_t> out, const OffcpuSample& s);

}  // namespace sonde::offcpu
