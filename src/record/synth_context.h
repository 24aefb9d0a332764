// What every synthesized record needs: where it goes, and the sample_id
// trailer that makes it parse with the same layout as the kernel's records.
#pragma once

#include <cstdint>

#include "format/record_builder.h"
#include "format/stream_writer.h"
#include "record/build_id_patcher.h"

namespace sonde::record {

struct SynthContext {
  format::StreamWriter& out;
  uint64_t sample_type;  // shared by every attr
  uint64_t id;           // the first event's first id: names a known attr
  BuildIdPatcher& build_ids;
  // Also the non-executable mappings (the tracking attr has mmap_data): DWARF
  // unwinders read .eh_frame_hdr through them.
  bool data_maps = false;

  // Appends the sample_id trailer (sample_id_all = 1): fields in perf's
  // order, only those in sample_type. Time 0 makes readers deliver the
  // record at once, before any sample.
  void put_trailer(format::RecordBuilder& b, uint32_t pid, uint32_t tid) const {
    if (sample_type & PERF_SAMPLE_TID) b.put(pid).put(tid);
    if (sample_type & PERF_SAMPLE_TIME) b.put(uint64_t{0});
    if (sample_type & PERF_SAMPLE_ID) b.put(id);
    if (sample_type & PERF_SAMPLE_STREAM_ID) b.put(id);
    if (sample_type & PERF_SAMPLE_CPU) b.put(uint32_t{0}).put(uint32_t{0});
    if (sample_type & PERF_SAMPLE_IDENTIFIER) b.put(id);
  }
  void emit(format::RecordBuilder& b) const {
    if (b.finish()) out.write_record(b.bytes());
  }
};

}  // namespace sonde::record
