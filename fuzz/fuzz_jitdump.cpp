// jitdumps (jit-PID.dump) written by JITs: the header and records of
// src/jit/jitdump.h. Every code load's bytes and lines are touched, so a
// range the parser let through that points outside the input shows up; and
// every load's unwinding tables go, as an ELF image (jit/cfi_image.h), to
// libdw's CFI reader, as the DWARF unwinder hands them to libdwfl.
#include <elfutils/libdw.h>
#include <libelf.h>

#include <cstdint>
#include <cstdlib>

#include "jit/cfi_image.h"
#include "jit/jitdump.h"

namespace {

void look_up_cfi(const uint8_t* data, const sonde::jit::JitCode& c) {
  if (c.unwind_size <= c.eh_frame_hdr_size) return;
  const uint64_t frame = c.unwind_size - c.eh_frame_hdr_size;
  auto image = sonde::jit::cfi_elf_image(
      {c.size, {data + c.unwind_offset, frame}, {data + c.unwind_offset + frame, c.eh_frame_hdr_size}});
  Elf* e = elf_memory(reinterpret_cast<char*>(image.data()), image.size());
  if (!e) return;
  if (Dwarf_CFI* cfi = dwarf_getcfi_elf(e)) {
    for (uint64_t pc : {uint64_t{0}, c.size / 2}) {
      Dwarf_Frame* f = nullptr;
      if (dwarf_cfi_addrframe(cfi, pc, &f) == 0) std::free(f);
    }
    dwarf_cfi_end(cfi);
  }
  elf_end(e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool libelf_ready = elf_version(EV_CURRENT) != EV_NONE;
  (void)libelf_ready;
  auto d = sonde::jit::parse_jitdump({data, size});
  uint64_t sum = 0;
  for (const auto& c : d.code) {
    if (c.code_offset + c.size > size) __builtin_trap();
    for (uint64_t i = 0; i < c.size; ++i) sum += data[c.code_offset + i];
    sum += c.name.size();
    if (c.first_line + static_cast<uint64_t>(c.line_count) > d.lines.size()) __builtin_trap();
    if (c.unwind_offset + c.unwind_size > size) __builtin_trap();
    look_up_cfi(data, c);
  }
  for (const auto& l : d.lines) sum += l.file.size() + l.line;
  return static_cast<int>(sum & 0);
}
