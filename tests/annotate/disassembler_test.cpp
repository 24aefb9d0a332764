// The capstone disassembler in objdump's text: mnemonic padded to 6,
// operands without blanks, direct targets kept as addresses.
#include <gtest/gtest.h>

#include <random>

#include "annotate/disassembler.h"

using namespace sonde::annotate;

TEST(Disassembler, AttTextAsObjdump) {
  // push %rbp; mov %rsp,%rbp; jmp +0 (to the next instruction); call -5; ret
  const uint8_t code[] = {0x55, 0x48, 0x89, 0xe5, 0xeb, 0x00, 0xe8, 0xfb, 0xff, 0xff, 0xff, 0xc3};
  Disassembler d(Syntax::kAtt);
  auto insns = d.disassemble(code, 0x1000);
  ASSERT_EQ(insns.size(), 5u);
  EXPECT_EQ(instruction_text(insns[0], ""), "push   %rbp");
  EXPECT_EQ(instruction_text(insns[1], ""), "mov    %rsp,%rbp");
  ASSERT_TRUE(insns[2].target);
  EXPECT_TRUE(insns[2].is_jump);
  EXPECT_EQ(*insns[2].target, 0x1006u);
  ASSERT_TRUE(insns[3].target);
  EXPECT_TRUE(insns[3].is_call);
  EXPECT_EQ(*insns[3].target, 0x1006u);
  EXPECT_EQ(instruction_text(insns[3], "1006 <f+0x6>").substr(0, 4), "call");
  EXPECT_EQ(insns[4].addr, 0x100bu);
}

TEST(Disassembler, IntelSyntax) {
  const uint8_t code[] = {0x48, 0x89, 0xe5};
  Disassembler d(Syntax::kIntel);
  auto insns = d.disassemble(code, 0);
  ASSERT_EQ(insns.size(), 1u);
  EXPECT_EQ(instruction_text(insns[0], ""), "mov    rbp,rsp");
}

TEST(Disassembler, UndecodableBytesBecomeOneByteBadInstructions) {
  const uint8_t code[] = {0x06, 0x55};  // 0x06 (push %es) does not exist in 64-bit mode
  Disassembler d(Syntax::kAtt);
  auto insns = d.disassemble(code, 0x10);
  ASSERT_EQ(insns.size(), 2u);
  EXPECT_TRUE(insns[0].bad);
  EXPECT_EQ(insns[0].size, 1u);
  EXPECT_EQ(insns[1].addr, 0x11u);
}

// What fuzz/fuzz_disassemble.cpp checks, on a fixed sample of random bytes:
// every byte belongs to one instruction, in order, in both syntaxes.
TEST(Disassembler, RandomBytesAreCoveredInOrder) {
  std::mt19937 rng(27);
  std::vector<uint8_t> code(64 * 1024);
  for (auto& b : code) b = uint8_t(rng());
  for (Syntax syntax : {Syntax::kAtt, Syntax::kIntel}) {
    Disassembler d(syntax);
    uint64_t end = 0x400000;
    for (const auto& insn : d.disassemble(code, 0x400000)) {
      ASSERT_EQ(insn.addr, end);
      ASSERT_GT(insn.size, 0u);
      end += insn.size;
      (void)instruction_text(insn, "400000 <f>");
    }
    EXPECT_EQ(end, 0x400000 + code.size());
  }
}
