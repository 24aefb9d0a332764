// The SAMPLE records of --call-graph cfi: what the unwinder sent
// (cfi_abi.h's sonde_cfi_sample), written in the layout of the recorder's
// first event (its attr, its kernel id for the sample's CPU), so that every
// reader, perf's included, sees ordinary cpu-clock samples whose call chain
// holds the kernel frames then the user frames behind perf's context
// markers, as a frame-pointer sample's. docs/format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cfi/cfi_abi.h"

namespace sonde::cfi {

// The sample_type bits a cfi sample can be written with: the recorder's
// (IDENTIFIER, IP, TID, TIME, CPU, PERIOD, CALLCHAIN), RAW (left empty) and
// ID. Others are refused when the recording starts.
inline constexpr uint64_t kWritableSampleType = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 5) | (1u << 6) |
                                                (1u << 7) | (1u << 8) | (1u << 10) | (1u << 16);

// The largest record build_cfi_sample writes.
inline constexpr size_t kCfiSampleMax = 8 + 10 * 8 + (3 + SONDE_CFI_MAX_FRAMES) * 8;

// Writes the SAMPLE into `out` (at least kCfiSampleMax bytes) and returns
// its size. `frames`: the program's nr_kernel kernel frames (its context
// markers dropped) then nr_user user frames.
size_t build_cfi_sample(std::span<uint8_t> out, uint64_t sample_type, uint64_t id, const sonde_cfi_sample& s,
                        std::span<const uint64_t> frames);

}  // namespace sonde::cfi
