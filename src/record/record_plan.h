// The first part of a recording: options and the kernel's capabilities in,
// a resolved plan out (the effective -F, targets, output layout, build-id
// and clock choices), every usage error found before anything is opened.
// plan_recording is pure (tests/record/record_plan_test.cpp); what it needs
// to know about the machine is read before, by read_kernel_facts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record/recorder.h"

namespace sonde::record {

inline constexpr uint64_t kDefaultFreq = 4000;  // -F when neither -F nor -c is given (as perf)
inline constexpr uint64_t kMaxFreq = 1000000;

// What the kernel and the machine offer, as far as the options need it.
struct KernelFacts {
  uint64_t max_sample_rate = 0;     // kernel.perf_event_max_sample_rate (0: unknown); read without -c
  bool cpu_pmu = false;             // a hardware PMU (asked for --call-graph lbr only)
  bool build_id_in_mmap2 = false;   // attr.build_id (asked for --buildid-mode=kernel only)
  bool monotonic_clock = false;     // attr.use_clockid with CLOCK_MONOTONIC
};
KernelFacts read_kernel_facts(const RecordOptions& options);

struct RecordPlan {
  uint64_t freq = kDefaultFreq;   // the effective -F (after -F max and the kernel's limit); unused with -c
  std::string freq_lowered;       // the warning when the kernel's limit lowered -F, else ""
  bool tasks = false;             // -p/-t
  bool system_wide = false;       // -a/-C
  bool workload = false;          // the forked command is what is recorded (not only how long)
  bool directory = false;         // --threads -o DIR: a directory of streams
  bool merged = false;            // --threads -o -: every drain into one ordered stream
  bool kernel_build_ids = false;  // attr.build_id
  bool build_ids_off = false;     // -B: no build-id anywhere
  bool mono_clock = false;        // records timed on CLOCK_MONOTONIC
};

// Throws sonde::Error (usage: exit 2; runtime for what the machine lacks),
// in the order the options are checked.
RecordPlan plan_recording(const RecordOptions& options, const KernelFacts& kernel);

}  // namespace sonde::record
