// .eh_frame_hdr search tables (cfi/eh_frame_hdr.h), as object files carry them.
#include <cstdint>
#include <span>
#include <string>

#include "cfi/eh_frame_hdr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  auto starts = sonde::cfi::fde_starts(std::span<const uint8_t>(data, size), 0x400000, &why);
  if (starts && !starts->empty()) (void)starts->front();
  return 0;
}
