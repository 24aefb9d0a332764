// Why a frame or an object has no symbol.
#pragma once

#include <cstdint>
#include <string_view>

namespace sonde {

enum class Reason : uint8_t {
  kNone = 0,         // resolved
  kUnknown,          // object found, but no symbol covers the address: "[unknown]"
  kBuildIdMismatch,  // a file exists at the path but its build-id differs
  kNotFound,         // no source has the object
};
// "", "[unknown]", "build-id mismatch", "not found".
std::string_view reason_text(Reason r);

}  // namespace sonde
