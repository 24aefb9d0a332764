// Byte surgery on the recorder's own SAMPLE records under pressure (the
// drain threads' drop policy, record/drain_reader.h): cut a dwarf sample's
// user stack, or take a dropped sample's sample_id for the LOST_SAMPLES that
// reports it. Both walk the sample with bounds checks and give up (return 0)
// on anything they cannot lay out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace sonde::record {

// The sample_id trailer (sample_id_all) that a non-sample record of the same
// event would carry: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, those of
// them in `sample_type`, taken from `sample`. Returns its size, 0 when
// `sample` is too short or `out` too small.
size_t sample_id_of(std::span<const uint8_t> sample, uint64_t sample_type, std::span<uint8_t> out);

// Cuts the PERF_SAMPLE_STACK_USER bytes of `sample` in place to at most
// `keep` (rounded down to 8), as simpleperf does under pressure: the
// registers stay, size and dyn_size (min(dyn_size, kept)) stay consistent,
// a cut to 0 drops dyn_size as the ABI says, what follows the stack moves
// up, and header.size shrinks. Returns the sample's new size; its old size
// when there is nothing to cut; 0 when the sample cannot be laid out.
size_t cut_user_stack(std::span<uint8_t> sample, uint64_t sample_type, uint64_t regs_user_mask, size_t keep);

}  // namespace sonde::record
