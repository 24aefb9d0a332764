// Reads perf's file-mode perf.data (what `perf record` writes without -o -)
// and presents it as the same record sequence a pipe-mode stream would give:
// HEADER_ATTR records built from the attrs section, HEADER_FEATURE records
// from the feature sections, then the data section's records.
#pragma once

#include <memory>
#include <string>

#include "format/byte_source.h"
#include "format/stream_reader.h"

namespace sonde::perf {

std::unique_ptr<RecordReader> open_file_mode(std::unique_ptr<ByteSource> src, const std::string& name);

}  // namespace sonde::perf
