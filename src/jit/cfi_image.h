// A JIT function's unwinding tables as an ELF image libdwfl can read CFI
// from. JIT_CODE_UNWINDING_INFO carries .eh_frame and .eh_frame_hdr as
// they lie in memory right after the code (at its size rounded up to 8, as
// perf's genelf places them), so their pc-relative pointers hold wherever
// the code is. The image is a shared object whose vaddr 0 is the code's
// first byte: a module reported at the code's address gets the right bias.
// It holds no code bytes: unwinding reads only the tables and the stack.
#pragma once

#include <elf.h>

#include <cstdint>
#include <span>
#include <vector>

namespace sonde::jit {

struct JitUnwindInfo {
  uint64_t code_size = 0;
  std::span<const uint8_t> eh_frame, eh_frame_hdr;
};

// ET_DYN, x86-64: a PT_LOAD of the code's size with no file bytes, a
// PT_LOAD of the two tables, PT_GNU_EH_FRAME, and sections .eh_frame,
// .eh_frame_hdr and .shstrtab.
std::vector<uint8_t> cfi_elf_image(const JitUnwindInfo& info);

// An x86-64 little-endian ELF header of type `type` (ET_DYN, ET_EXEC) and
// nothing else: no program or section headers. Alone it is enough for
// libdwfl to know the machine (DwarfUnwinder's JIT leaves).
Elf64_Ehdr x86_64_elf_header(uint16_t type);

}  // namespace sonde::jit
