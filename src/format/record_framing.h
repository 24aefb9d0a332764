// Framing rules shared by every record source (pipe stream, file-mode data
// section, decompressed COMPRESSED payloads): which records carry payload
// bytes after header.size, and which types perf 6.1 knows.
#pragma once

#include <cstdint>

#include "format/perf_abi.h"
#include "util/byte_reader.h"

namespace sonde::format {

// Bytes that follow a record without being counted by header.size
// (HEADER_TRACING_DATA's blob, AUXTRACE's trace data). `rec` must hold at
// least h.size bytes.
inline uint64_t trailing_size(const RecordHeader& h, const uint8_t* rec) {
  if (h.type == kHeaderTracingData && h.size >= 12) return load<uint32_t>(rec + 8);
  if (h.type == kAuxtrace && h.size >= 16) return load<uint64_t>(rec + 8);
  return 0;
}

// A trailing payload larger than this is taken as corruption, not data.
inline constexpr uint64_t kMaxTrailingSize = 1ULL << 32;

inline bool is_known_record_type(uint32_t type) {
  return (type >= kMmap && type <= kMaxKernelType) || (type >= kHeaderAttr && type <= kMaxUserType);
}

}  // namespace sonde::format
