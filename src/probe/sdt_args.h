// The SDT argument mini-language (`[-]SIZE[f]@OPERAND`, space separated):
// what an argument string of a `.note.stapsdt` note means, parsed once into a
// recipe the BPF program can execute. x86-64 fully (registers, sub-registers
// incl. %ah-style, $imm, disp(%reg), (%base,%index,scale), sym(%rip)) and
// aarch64 (x0/w0, [sp, 96], [x1], constants) for listing and checking.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::probe {

enum class ArgKind : uint8_t { Imm, Reg, Mem, RipMem };

inline constexpr uint8_t kNoReg = 0xff;

struct SdtArg {
  std::string text;       // the operand as written, e.g. "-4@%edi"
  uint8_t size = 8;       // 1, 2, 4 or 8 bytes
  bool is_signed = false;
  bool is_float = false;
  ArgKind kind = ArgKind::Imm;
  // Registers are numbered per architecture: x86-64 = u64 slot in struct
  // pt_regs (rax 10, rdi 14, ...); aarch64 = x0..x30, sp 31, pc 32.
  uint8_t base = kNoReg;
  uint8_t index = kNoReg;
  uint8_t scale = 1;
  uint8_t shift = 0;      // 8 for %ah/%bh/%ch/%dh
  int64_t disp = 0;       // Imm: the value; Mem: displacement; RipMem: symbol vaddr + offset
  std::string symbol;     // RipMem: the symbol named
  uint64_t sym_addr = 0;  // RipMem: the symbol's link-time address
  // Not in the SDT language; set for `sonde record -e probe:` (dynamic_sites.h):
  std::vector<int32_t> derefs;  // Mem: pointer reads after the first, each adding its offset
  bool is_string = false;       // Mem: a NUL-terminated string at the final address
};

// Resolves a symbol name to its link-time virtual address (nullopt if absent
// or ambiguous, with `why` saying which).
using SymbolResolver = std::function<std::optional<uint64_t>(const std::string& name, std::string& why)>;

// e_machine values this parser knows.
inline constexpr uint16_t kMachineI386 = 3;      // EM_386: parsed with the x86 rules (listing only)
inline constexpr uint16_t kMachineX86_64 = 62;   // EM_X86_64
inline constexpr uint16_t kMachineAarch64 = 183; // EM_AARCH64

struct ParsedArgs {
  std::vector<SdtArg> args;
  std::string error;  // non-empty: the first argument that could not be parsed, and why
  bool ok() const { return error.empty(); }
};

// Parses a whole argument string. Never throws; failures are reported in
// ParsedArgs::error so a listing still shows the site.
ParsedArgs parse_sdt_args(std::string_view spec, uint16_t machine, const SymbolResolver& resolve = {});

// Splits on spaces outside [...] (aarch64 writes "[sp, 96]").
std::vector<std::string> split_sdt_args(std::string_view spec);

// x86-64 register name (without %) → pt_regs slot, shift and width in bytes.
struct X86Reg {
  uint8_t slot;
  uint8_t shift;
  uint8_t width;
};
std::optional<X86Reg> x86_register(std::string_view name);

}  // namespace sonde::probe
