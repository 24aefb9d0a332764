// .eh_frame_hdr (the LSB's "Exception Frame Header"): its binary-search
// table lists where every FDE of .eh_frame starts, sorted. The table
// compiler (table_compiler.h) walks those starts; libdw evaluates the FDEs.
// The bytes come from an object file: every read is bounds-checked and the
// table's length is trusted only as far as the bytes that remain.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonde::cfi {

// The FDE initial locations (link-time addresses) of `hdr`, the section's
// bytes loaded at `hdr_vaddr`, sorted and without repeats. nullopt and *why
// when the header is malformed or uses an encoding other than the
// (u|s)data(2|4|8) / absptr values, absolute, pc- or data-relative.
std::optional<std::vector<uint64_t>> fde_starts(std::span<const uint8_t> hdr, uint64_t hdr_vaddr, std::string* why);

}  // namespace sonde::cfi
