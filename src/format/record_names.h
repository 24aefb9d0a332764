// perf's names of record types ("MMAP2", "FINISHED_ROUND", ...), as
// `perf report --stats` and `perf script -D` print them.
#pragma once

#include <cstdint>
#include <string_view>

namespace sonde::format {

// "UNKNOWN" for a type perf 6.1 does not name.
std::string_view record_type_name(uint32_t type);

}  // namespace sonde::format
