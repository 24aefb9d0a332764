// Machine code from an object sonde annotates: capstone's decoding and
// sonde's rewriting of its text (operands, mnemonics, targets) over any bytes.
#include <cstdint>

#include "annotate/disassembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sonde::annotate::Disassembler att(sonde::annotate::Syntax::kAtt);
  static sonde::annotate::Disassembler intel(sonde::annotate::Syntax::kIntel);
  for (auto* d : {&att, &intel}) {
    uint64_t end = 0x1000;
    for (const auto& insn : d->disassemble({data, size}, 0x1000)) {
      if (insn.addr != end || insn.size == 0) __builtin_trap();  // the listing covers every byte, in order
      end += insn.size;
      (void)sonde::annotate::instruction_text(insn, "1000 <f>");
    }
    if (end != 0x1000 + size) __builtin_trap();
  }
  return 0;
}
