// The tracepoint formats carried by HEADER_TRACING_DATA, parsed so a reader
// can print a tracepoint sample's RAW fields by name.
#pragma once

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sonde::format {

struct TracepointField {
  std::string name;
  std::string type;  // as declared, e.g. "char comm[16]", "__data_loc char[] filename"
  uint32_t offset = 0, size = 0;
  bool is_signed = false;
  bool is_string = false;    // char[N]
  bool is_data_loc = false;  // __data_loc: u32 = (len << 16) | offset
};

struct TracepointFormat {
  std::string system, name;
  uint64_t id = 0;
  std::vector<TracepointField> fields;  // without the common_* fields
  std::string print_fmt;                // the "print fmt:" line's text
};

// The string a __data_loc field points to in `raw` (up to its NUL); nullopt
// when the field or the string lies beyond the payload.
std::optional<std::string_view> data_loc_string(const TracepointField& f, std::span<const uint8_t> raw);

// Parses one tracefs `format` file's text.
bool parse_tracepoint_format(std::string_view text, const std::string& system, TracepointFormat& out);

// Parses the tracing data blob (see docs/format.md); formats by tracepoint id.
// Malformed input yields whatever parsed before the damage.
std::unordered_map<uint64_t, TracepointFormat> parse_tracing_data(std::span<const uint8_t> blob);

// "field=value field=value" for a RAW payload; a probe event's text as its
// print fmt gives it (probe_event_text.h), as perf prints it.
std::string format_tracepoint_fields(const TracepointFormat& fmt, std::span<const uint8_t> raw);

}  // namespace sonde::format
