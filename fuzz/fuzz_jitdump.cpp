// jitdumps (jit-PID.dump) written by JITs: the header and records of
// src/jit/jitdump.h. Every code load's bytes and lines are touched, so a
// range the parser let through that points outside the input shows up.
#include <cstdint>

#include "jit/jitdump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto d = sonde::jit::parse_jitdump({data, size});
  uint64_t sum = 0;
  for (const auto& c : d.code) {
    if (c.code_offset + c.size > size) __builtin_trap();
    for (uint64_t i = 0; i < c.size; ++i) sum += data[c.code_offset + i];
    sum += c.name.size();
    if (c.first_line + static_cast<uint64_t>(c.line_count) > d.lines.size()) __builtin_trap();
    if (c.unwind_offset + c.unwind_size > size) __builtin_trap();
  }
  for (const auto& l : d.lines) sum += l.file.size() + l.line;
  return static_cast<int>(sum & 0);
}
