// Framing rules shared by every record source (pipe stream, file-mode data
// section, decompressed COMPRESSED payloads): which records carry payload
// bytes after header.size, and which types perf 6.1 knows.
#pragma once

#include <cstdint>

#include "format/perf_abi.h"
#include "format/records.h"

namespace sonde::format {

// Bytes that follow a record without being counted by header.size
// (HEADER_TRACING_DATA's blob, AUXTRACE's trace data). `rec` must hold at
// least h.size bytes.
inline uint64_t trailing_size(const RecordHeader& h, const uint8_t* rec) {
  const std::span<const uint8_t> bytes(rec, h.size);
  if (h.type == kHeaderTracingData)
    if (auto t = TracingDataView::parse(bytes)) return t->size;
  if (h.type == kAuxtrace)
    if (auto a = AuxtraceView::parse(bytes)) return a->size;
  return 0;
}

// A trailing payload larger than this is taken as corruption, not data.
inline constexpr uint64_t kMaxTrailingSize = 1ULL << 32;

inline bool is_known_record_type(uint32_t type) {
  return (type >= kMmap && type <= kMaxKernelType) || (type >= kHeaderAttr && type <= kMaxUserType);
}

}  // namespace sonde::format
