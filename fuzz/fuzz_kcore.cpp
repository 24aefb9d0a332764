// /proc/kcore's headers (or a copy's, `perf record --kcore`): the ELF header
// and program headers annotate/kcore_reader.h parses before it reads kernel
// code. A segment the parser keeps must not wrap, and a parse that asks for
// more bytes must ask for more than it was given.
#include <cstdint>
#include <string>

#include "annotate/kcore_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  uint64_t need = 0;
  auto segments = sonde::annotate::parse_kcore_segments({data, size}, &why, &need);
  if (!segments && need != 0 && need <= size) __builtin_trap();
  if (segments)
    for (const auto& s : *segments)
      if (s.vaddr + s.size < s.vaddr || s.offset + s.size < s.offset || s.size == 0) __builtin_trap();
  return 0;
}
