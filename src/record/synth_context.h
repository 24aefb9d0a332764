// What every synthesized record needs: where it goes, and the sample_id
// trailer that makes it parse with the same layout as the kernel's records.
#pragma once

#include <cstdint>

#include "format/record_builder.h"
#include "format/sample_edit.h"
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

  // Appends the sample_id trailer (sample_id_all = 1; format/sample_edit.h).
  // Time 0 makes readers deliver the record at once, before any sample.
  void put_trailer(format::RecordBuilder& b, uint32_t pid, uint32_t tid) const {
    format::put_sample_id(b, sample_type, {.pid = pid, .tid = tid, .time = 0, .id = id, .stream_id = id, .cpu = 0});
  }
  void emit(format::RecordBuilder& b) const {
    if (b.finish()) out.write_record(b.bytes());
  }
};

}  // namespace sonde::record
