// Unwinds the user part of `--call-graph dwarf` samples (PERF_SAMPLE_REGS_USER
// + PERF_SAMPLE_STACK_USER) with the objects' DWARF CFI, as perf's
// unwind-libdw does: libdwfl walks the frames, reading the stack from the
// sample's copy and the CFI (.eh_frame) from the mapped objects. The sample's call chain is then the kernel part
// it came with, PERF_CONTEXT_USER, and the unwound addresses, leaf first
// (return addresses minus one, as perf stores them), so every consumer of
// call chains works unchanged.
//
// Objects are found by build-id like everywhere else, through
// symbol/object_locator.h: the build-id cache, then the mapped path (through
// /proc/PID/root), used only when the build-id matches; [vdso] from the
// cache's copy or the running kernel's. Each object file is opened and
// mapped once per report and shared by every process; one libdwfl session
// per process (libdwfl places modules per address space) keeps its CFI
// lookups across that process's samples. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/sample.h"
#include "analysis/address_space.h"
#include "analysis/jit_timeline.h"

namespace sonde::analysis {

struct UnwindStats {
  uint64_t samples = 0;       // samples with registers and stack
  uint64_t unwound = 0;       // ... that gave at least one caller
  uint64_t frames = 0;        // user frames produced, leaf included
  uint64_t fp_frames = 0;     // ... found through a frame pointer, below code with no CFI object
  uint64_t sessions = 0;      // processes unwound (one libdwfl session each)
  uint64_t objects = 0;       // object files mapped: once per report each, whatever the processes
};

class DwarfUnwinder {
 public:
  // `cache_root`: the build-id cache ("" = BuildIdCache::default_root()).
  explicit DwarfUnwinder(std::string cache_root = "");
  ~DwarfUnwinder();
  DwarfUnwinder(const DwarfUnwinder&) = delete;
  DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

  // True when `s` (of an event recorded with `regs_mask`) has what
  // unwinding needs; then s.callchain is replaced by a chain in this
  // object's storage, valid until the next call.
  bool unwind(format::Sample& s, uint64_t regs_mask, const AddressSpace& space);

  // Where JIT code's unwinding tables come from (jitdumps'
  // JIT_CODE_UNWINDING_INFO); without it JIT code is unwound through its
  // frame pointers. The timeline must outlive this unwinder.
  void set_jit_timeline(const JitTimeline* jit);

  // The process exec'ed or ended: its objects are not those any more.
  void forget(uint32_t pid);

  const UnwindStats& stats() const { return stats_; }
  // One line for the user when samples could not be unwound past the
  // sampled function (their object not found, or without CFI), else "".
  std::string note() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  UnwindStats stats_;
};

}  // namespace sonde::analysis
