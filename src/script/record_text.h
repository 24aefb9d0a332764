// perf's one-line text for a kernel side-band record (perf_event__fprintf in
// perf 6.1's util/event.c): "PERF_RECORD_MMAP2 12/12: [0x...(0x...) @ 0x...
// <build-id>]: r-xp /usr/bin/x", "PERF_RECORD_COMM exec: sh:12/12", ... Used by
// script's --show-mmap-events / --show-task-events and its -D dump.
#pragma once

#include <fmt/format.h>

#include "format/stream_reader.h"

namespace sonde::script {

// perf's raw-dump numbers: 0 as "0", anything else as 0x-prefixed hex.
std::string hex_or_zero(uint64_t v);

// Appends the text and a newline. Records without a body perf describes
// get their name only; a record too short for its type says so.
void append_record_text(const format::RecordView& rec, fmt::memory_buffer& out);

}  // namespace sonde::script
