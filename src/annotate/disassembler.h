// x86-64 machine code to text, in process, with capstone (docs/architecture.md
// says why not objdump). Text as objdump prints it for perf annotate:
// the mnemonic padded to 6, operands without blanks after commas, and
// direct branch and call targets as an address a caller can name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonde::annotate {

enum class Syntax { kAtt, kIntel };

struct Instruction {
  uint64_t addr = 0;  // link-time address
  uint32_t size = 0;
  std::string mnemonic;
  std::string operands;             // branch targets left out when `target` is set
  std::optional<uint64_t> target;   // a direct jump or call's destination
  bool is_call = false;
  bool is_jump = false;             // conditional or not, direct or not
  bool bad = false;                 // bytes capstone could not decode (one byte, "(bad)")
  std::optional<uint64_t> rip_target;  // the address a %rip-relative operand names
  std::vector<uint8_t> bytes;
};

class Disassembler {
 public:
  // Throws sonde::Error (runtime) when capstone cannot be opened.
  explicit Disassembler(Syntax syntax);
  ~Disassembler();
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;

  // Every instruction of `code`, which starts at `addr`. Undecodable bytes
  // become one-byte "(bad)" instructions, so the listing always covers the
  // whole range.
  std::vector<Instruction> disassemble(std::span<const uint8_t> code, uint64_t addr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "mov    %rsp,%rbp": the mnemonic padded to 6 and a blank, as objdump.
std::string instruction_text(const Instruction& insn, const std::string& target_text);

}  // namespace sonde::annotate
