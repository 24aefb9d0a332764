// Reads perf's file-mode perf.data (what `perf record` writes without -o -)
// and presents it as the same record sequence a pipe-mode stream would give:
//   HEADER_ATTR per attrs-section entry (attr + its ids),
//   HEADER_FEATURE per feature section (ascending ids, then the end marker),
//   HEADER_TRACING_DATA from feature 1 (the blob as trailing bytes),
//   HEADER_BUILD_ID per entry of the BUILD_ID feature (feature 2), so
//     consumers know the build-id table before the first sample,
//   then the data section's records as they are on disk.
// Every offset and size in the header is checked against the file size; a
// section outside the file is a one-line sonde::Error naming the offset and
// the file size. A data section cut short (a killed `perf record`) is read up
// to its last complete record and the rest is reported by truncated_bytes().
#pragma once

#include <memory>
#include <string>

#include "format/byte_source.h"
#include "format/stream_reader.h"

namespace sonde::format {

// `src` is positioned at the start of the file and must be a mapped regular
// file (file mode needs random access; a pipe cannot carry it).
std::unique_ptr<RecordReader> open_file_mode(std::unique_ptr<ByteSource> src, const std::string& name);

}  // namespace sonde::format
