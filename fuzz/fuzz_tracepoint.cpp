// Tracepoint formats: a tracing-data blob (HEADER_TRACING_DATA), and one
// format text applied to a RAW payload as `sonde script` prints it. Input:
// u16 text length, the format text, then the RAW payload; the whole input is
// also read as a tracing-data blob.
#include <cstring>
#include <span>
#include <string_view>

#include "format/tracepoint_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> all(data, size);
  for (const auto& [id, format] : sonde::format::parse_tracing_data(all))
    (void)sonde::format::format_tracepoint_fields(format, all);
  if (size < 2) return 0;
  uint16_t text_len = 0;
  std::memcpy(&text_len, data, sizeof text_len);
  const size_t n = std::min<size_t>(text_len, size - 2);
  std::string_view text(reinterpret_cast<const char*>(data + 2), n);
  sonde::format::TracepointFormat format;
  sonde::format::parse_tracepoint_format(text, "fuzz", format);
  (void)sonde::format::format_tracepoint_fields(format, all.subspan(2 + n));
  return 0;
}
