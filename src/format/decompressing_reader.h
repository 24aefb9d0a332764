// Makes `perf record -z` recordings look like uncompressed ones: a decorator
// over any RecordReader that expands PERF_RECORD_COMPRESSED (81) payloads
// with one zstd streaming context for the whole recording, carrying a
// record cut at the end of one payload into the next (perf flushes its
// compression stream per chunk, not per record). Decompressed records come
// out of next() in place of the COMPRESSED record, like inline ones.
// Records of types perf 6.1 does not know are skipped here and counted in
// unknown_records(), so consumers only ever see known types.
#pragma once

#include <memory>

#include "format/stream_reader.h"

namespace sonde::format {

std::unique_ptr<RecordReader> make_decompressing_reader(std::unique_ptr<RecordReader> inner);

}  // namespace sonde::format
