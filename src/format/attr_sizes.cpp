#include "format/attr_sizes.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace sonde::format {

uint32_t read_attr(std::span<const uint8_t> bytes, perf_event_attr& out, std::string* why) {
  auto fail = [&](std::string text) {
    if (why) *why = std::move(text);
    return uint32_t{0};
  };
  if (bytes.size() < 8) return fail(fmt::format("attr cut short: {} bytes", bytes.size()));
  uint32_t size;
  std::memcpy(&size, bytes.data() + offsetof(perf_event_attr, size), sizeof size);
  if (size == 0) size = kPerfAttrSizeVer0;  // the kernel's and perf's reading of 0
  if (size < kPerfAttrSizeVer0)
    return fail(fmt::format("attr size {} is smaller than the first perf_event_attr ({} bytes)", size,
                            kPerfAttrSizeVer0));
  if (size > bytes.size())
    return fail(fmt::format("attr size {} runs past its record ({} bytes)", size, bytes.size()));
  const size_t known = std::min<size_t>(size, sizeof out);
  const auto unknown = bytes.subspan(known, size - known);
  if (std::any_of(unknown.begin(), unknown.end(), [](uint8_t b) { return b != 0; }))
    return fail(fmt::format(
        "attr of {} bytes sets fields past the {} bytes of perf_event_attr sonde knows (written by a newer "
        "kernel or perf)",
        size, sizeof out));
  out = perf_event_attr{};
  std::memcpy(&out, bytes.data(), known);
  out.size = static_cast<uint32_t>(known);
  return size;
}

uint32_t attr_size_to_write(const perf_event_attr& attr) {
  if (attr.size < kPerfAttrSizeVer0 || attr.size > sizeof(perf_event_attr)) return sizeof(perf_event_attr);
  return attr.size;
}

}  // namespace sonde::format
