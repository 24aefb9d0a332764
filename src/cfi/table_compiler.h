// The table compiler: an object's .eh_frame (and .debug_frame) turned into a compact unwind
// table (cfi_abi.h's packed rows), evaluated with libdw at build time so
// that the BPF unwinder only adds offsets and reads the stack. For every
// address range an FDE covers: how the CFA is found (rsp+N, rbp+N, the PLT
// stubs' expression; anything else is marked unsupported and counted),
// where the caller's rbp is (unchanged, or at CFA-8n) and that the return
// address is at CFA-8. Gaps between FDEs get a row that says "no CFI: use
// the frame pointer". docs/cfi.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cfi/cfi_abi.h"

namespace sonde {
class ElfFile;
}

namespace sonde::cfi {

struct TableStats {
  uint64_t fdes = 0;         // FDEs: .eh_frame_hdr's, and .debug_frame's no .eh_frame FDE starts at
  uint64_t ranges = 0;       // address ranges libdw evaluated
  uint64_t unsupported = 0;  // ... whose rule the unwinder cannot follow
  uint64_t plt = 0;          // ... of PLT stubs
  uint64_t rbp_cfa = 0;      // ... with the CFA at rbp+N
};

// A decoded row (the packed form is cfi_abi.h's SONDE_ROW).
struct Rule {
  uint32_t cfa = SONDE_CFA_NONE;  // SONDE_CFA_*
  uint32_t offset = 0;
  uint32_t rbp = SONDE_RBP_SAME;  // SONDE_RBP_*
  uint32_t rbp_slot = 0;          // rbp at CFA - 8 * rbp_slot
  bool operator==(const Rule&) const = default;
};
Rule decode(uint64_t row);

struct UnwindTable {
  uint64_t base = 0;          // link-time address of row pc 0
  std::vector<uint64_t> rows; // sorted by pc; identical neighbours merged
  TableStats stats;
  size_t bytes() const { return rows.size() * sizeof(uint64_t); }
  // The rule at a link-time address, as the BPF program finds it (the last
  // row at or before it); a NONE rule outside the table.
  Rule rule_at(uint64_t vaddr) const;
};

// Compiles `elf`'s .eh_frame (located through .eh_frame_hdr) and, for code
// no .eh_frame FDE covers, its .debug_frame (an object built without unwind
// tables but with -g). nullopt and *why when the object has neither, libdw
// cannot read them, or its code spans more than 4 GiB.
std::optional<UnwindTable> compile_table(const ElfFile& elf, std::string* why);

}  // namespace sonde::cfi
