// perf_event_attr copies of every size: each kernel release may append
// fields, and attr.size says how many bytes a copy has (0: VER0, 64 bytes).
// Recordings hold attrs of the size their recorder used: perf up to 5.12
// wrote 120 or less, perf 6.1 writes 128, perf 6.3 and later 136.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "format/perf_abi.h"

namespace sonde::format {

// Reads the attr at the start of `bytes` (a HEADER_ATTR body, a file-mode
// attrs entry, an EVENT_DESC entry) by its own size field, as the kernel
// copies one from user space: a shorter copy leaves the later fields 0; a
// longer one is accepted only when every byte past sizeof(perf_event_attr)
// is zero. out.size becomes the number of bytes of `out` the copy filled
// (64..136). Returns the copy's size on disk (where the bytes after it
// start), or 0 with *why set to one line when the size is below VER0, runs
// past `bytes`, or the unknown tail is not zero.
uint32_t read_attr(std::span<const uint8_t> bytes, perf_event_attr& out, std::string* why);

// The size a writer gives `attr` on disk: attr.size when it is one sonde
// knows (VER0 .. sizeof(perf_event_attr)), which for an opened event is the
// size the running kernel accepted; sizeof(perf_event_attr) when it is 0
// (not set) or otherwise out of range.
uint32_t attr_size_to_write(const perf_event_attr& attr);

}  // namespace sonde::format
