// The kernel symbol table of a cached kallsyms copy, kept on disk beside it
// ([kernel.kallsyms]/BUILDID/sonde-kallsyms.idx): reading it back is one
// read of ~1 MB instead of parsing 5+ MB of text (120K lines, ~5 ms of a
// report's CPU), and a cold report reads 1 MB from disk instead of 5.
//
// Native byte order (the cache is local); bound to the exact copy it was
// made from by that file's size and inode, since names stay in the copy and
// are read by position. Untrusted when read back: every length, position
// and ordering is checked, and a bad index is ignored (and rewritten).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symbol/kernel_symbols.h"

namespace sonde {

inline constexpr char kKallsymsIndexName[] = "sonde-kallsyms.idx";

// Which kallsyms file an index describes.
struct KallsymsText {
  uint64_t size = 0;
  uint64_t inode = 0;
  bool operator==(const KallsymsText&) const = default;
};

// The index bytes of a finished table read from `text`.
std::string encode_kallsyms_index(const KernelSymbols& syms, const std::vector<ModuleRange>& modules, KallsymsText text);

// Reads an index back into `syms` (names from `names`, the file `text`
// describes) and `modules`. false and *why when it is not a valid index of
// that file; `syms` and `modules` are then unchanged.
bool decode_kallsyms_index(std::span<const uint8_t> bytes, KallsymsText text, UniqueFd names, KernelSymbols& syms,
                           std::vector<ModuleRange>& modules, std::string* why);

}  // namespace sonde
