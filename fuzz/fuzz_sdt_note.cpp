// .note.stapsdt of an ELF file: sites, .stapsdt.base, address to file offset,
// DT_NEEDED and RUNPATH, argument specs with rip-relative symbols.
#include "fuzz_input.h"
#include "probe/sdt_note.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sonde::fuzz::InputFile in(data, size);
  for (auto mode : {sonde::probe::SdtArgs::Parse, sonde::probe::SdtArgs::Skip}) {
    try {
      (void)sonde::probe::scan_sdt_file(in.path(), mode);
    } catch (const sonde::Error&) {
    }
  }
  return 0;
}
