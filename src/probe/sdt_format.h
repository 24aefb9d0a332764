// Decoding the RAW payload of SDT samples for `sonde script`.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "format/sample.h"

namespace sonde::probe {

// " arg1=... argN=..." for a sample whose RAW payload is a sonde SDT record
// (signed values in decimal, unsigned in decimal, floats as %g, a failed
// memory read as "?"); "" for a probe without arguments; nullopt when the
// sample is not an SDT sample.
std::optional<std::string> format_sdt_args(const perf::Sample& sample);
std::optional<std::string> format_sdt_raw(std::span<const uint8_t> raw);

}  // namespace sonde::probe
