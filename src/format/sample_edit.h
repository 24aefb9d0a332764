// Writing SAMPLE fields and the sample_id trailer, with the one sample
// layout the decoder reads (session.h's decode_sample_body): the recorder's
// byte surgery under pressure (the drain threads' drop policy,
// record/drain_reader.h: cut a dwarf sample's user stack, take a dropped
// sample's sample_id for the LOST_SAMPLES that reports it), the SDT
// extension's renaming of its samples, and the trailer of every record the
// recorder synthesizes. Each gives up (returns 0 / false) on a sample it
// cannot lay out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "format/record_builder.h"
#include "format/sample.h"

namespace sonde::format {

// The sample_id trailer (sample_id_all) of `id` for `sample_type`: TID,
// TIME, ID, STREAM_ID, CPU, IDENTIFIER, those of them in it, as u64 words
// (TID: pid then tid; CPU: cpu then a zero). Returns how many.
size_t sample_id_words(uint64_t sample_type, const SampleId& id, uint64_t (&out)[6]);
// The same appended to a record being built.
void put_sample_id(RecordBuilder& b, uint64_t sample_type, const SampleId& id);

// The sample_id trailer that a non-sample record of the same event would
// carry, taken from `sample` (a whole SAMPLE record). Returns its size, 0
// when `sample` is too short or `out` too small.
size_t sample_id_of(std::span<const uint8_t> sample, uint64_t sample_type, std::span<uint8_t> out);

// Cuts the PERF_SAMPLE_STACK_USER bytes of `sample` in place to at most
// `keep` (rounded down to 8), as simpleperf does under pressure: the
// registers stay, size and dyn_size (min(dyn_size, kept)) stay consistent,
// a cut to 0 drops dyn_size as the ABI says, what follows the stack moves
// up, and header.size shrinks. Returns the sample's new size; its old size
// when there is nothing to cut; 0 when the sample cannot be laid out.
size_t cut_user_stack(std::span<uint8_t> sample, uint64_t sample_type, uint64_t regs_user_mask, size_t keep);

// Sets the fixed u64 field `field` (IDENTIFIER ... PERIOD) of a whole SAMPLE
// record in place; false when such samples do not carry it or the record
// is too short.
bool set_sample_field(std::span<uint8_t> sample, uint64_t sample_type, uint64_t field, uint64_t value);

}  // namespace sonde::format
