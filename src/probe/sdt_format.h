// Decoding the RAW payload of SDT samples for `sonde script`.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "format/sample.h"
#include "format/session.h"

namespace sonde::probe {

// True for a sample of a bpf-output event: how sonde records SDT probe hits.
bool is_sdt_sample(const format::Sample& sample);

// " arg1=... argN=..." for a sample whose RAW payload is a sonde SDT record
// (signed values in decimal, unsigned in decimal, floats as %g, a failed
// memory read as "?"); "" for a probe without arguments; nullopt when the
// sample is not an SDT sample.
// Only samples of bpf-output events (how sonde records SDT probes) qualify.
std::optional<std::string> format_sdt_args(const format::Sample& sample);
// The same, shaped for script::ScriptPrinter::set_extra_fields: the text
// without its leading space; false when there is nothing to print.
bool sdt_extra_fields(const format::Sample& sample, std::string& out);
std::optional<std::string> format_sdt_raw(std::span<const uint8_t> raw);

// One argument of a probe hit, as recorded.
struct SdtValue {
  uint64_t bits = 0;   // sign-extended for signed types; IEEE bits for floats
  uint8_t size = 0;    // bytes
  bool is_signed = false, is_float = false;
  bool fault = false;  // the memory read failed
  bool is_string = false;
  std::string_view text;  // is_string: the bytes (into the payload given to decode_sdt_values)
};
// The arguments of an SDT sample's RAW payload (at most 12), or false when
// it is not a valid sonde SDT record.
bool decode_sdt_values(std::span<const uint8_t> raw, std::vector<SdtValue>& out);
// A float argument's value (4 or 8 bytes).
double sdt_float(const SdtValue& v);

}  // namespace sonde::probe
