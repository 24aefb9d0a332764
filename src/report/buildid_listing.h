// The distinct (build-id, path) pairs a recording names: MMAP2 build-ids and
// HEADER_BUILD_ID records.
#pragma once

#include <string>
#include <vector>

#include "format/stream_reader.h"

namespace sonde::report {

struct BuildIdEntry {
  std::string build_id;  // hex
  std::string path;
};

// Sorted by path. `with_hits`: only objects that a sample's frames hit.
std::vector<BuildIdEntry> list_build_ids(format::RecordReader& reader, bool with_hits);

}  // namespace sonde::report
