#include <gtest/gtest.h>

#include "probe/sdt_args.h"
#include "probe/sdt_spec.h"
#include "util/error.h"

using namespace sonde::probe;

namespace {

ParsedArgs x86(const std::string& s) {
  return parse_sdt_args(s, kMachineX86_64, [](const std::string& name, std::string& why) -> std::optional<uint64_t> {
    if (name == "glob") return 0x4010;
    if (name == "dup") {
      why = "several symbols have that name";
      return std::nullopt;
    }
    return std::nullopt;
  });
}

}  // namespace

TEST(SdtArgs, RegistersAndSubRegisters) {
  auto p = x86("-4@%edi 8@%rbx 1@%dil -1@%ah 2@%r9w 1@%r10b -8@%r15 4@%r8d 1@%bh");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.args.size(), 9u);
  EXPECT_EQ(p.args[0].kind, ArgKind::Reg);
  EXPECT_EQ(p.args[0].base, 14);  // rdi slot in pt_regs
  EXPECT_TRUE(p.args[0].is_signed);
  EXPECT_EQ(p.args[0].size, 4);
  EXPECT_EQ(p.args[1].base, 5);   // rbx
  EXPECT_EQ(p.args[2].base, 14);
  EXPECT_EQ(p.args[2].size, 1);
  EXPECT_EQ(p.args[3].base, 10);  // rax
  EXPECT_EQ(p.args[3].shift, 8);
  EXPECT_EQ(p.args[4].base, 8);   // r9
  EXPECT_EQ(p.args[5].base, 7);   // r10
  EXPECT_EQ(p.args[6].base, 0);   // r15
  EXPECT_EQ(p.args[8].shift, 8);
  EXPECT_EQ(p.args[8].base, 5);
}

TEST(SdtArgs, ConstantsMemoryAndRipRelative) {
  auto p = x86("-4@$5 1@$0 -8@$-9 8@$0x10 8@152(%rbx) -4@112(%rsp) 8@-80(%rbx) 8@(%rsp) -8@(%rsi,%rdx,8) "
               "1@-96(%rbp,%rax,8) -8@glob(%rip) 4@glob+4(%rip)");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.args.size(), 12u);
  EXPECT_EQ(p.args[0].kind, ArgKind::Imm);
  EXPECT_EQ(p.args[0].disp, 5);
  EXPECT_EQ(p.args[2].disp, -9);
  EXPECT_EQ(p.args[3].disp, 16);
  EXPECT_EQ(p.args[4].kind, ArgKind::Mem);
  EXPECT_EQ(p.args[4].disp, 152);
  EXPECT_EQ(p.args[4].base, 5);
  EXPECT_EQ(p.args[5].base, 19);  // rsp
  EXPECT_EQ(p.args[6].disp, -80);
  EXPECT_EQ(p.args[7].disp, 0);
  EXPECT_EQ(p.args[8].base, 13);
  EXPECT_EQ(p.args[8].index, 12);
  EXPECT_EQ(p.args[8].scale, 8);
  EXPECT_EQ(p.args[9].disp, -96);
  EXPECT_EQ(p.args[9].base, 4);
  EXPECT_EQ(p.args[9].index, 10);
  EXPECT_EQ(p.args[10].kind, ArgKind::RipMem);
  EXPECT_EQ(p.args[10].disp, 0x4010);
  EXPECT_EQ(p.args[11].disp, 0x4014);
}

TEST(SdtArgs, FloatAndEmpty) {
  auto p = x86("8f@%rax -4@%eax");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.args[0].is_float);
  EXPECT_TRUE(x86("").args.empty());
  EXPECT_TRUE(x86(":old style").args.empty());
}

TEST(SdtArgs, UnsupportedFormsAreReported) {
  EXPECT_NE(x86("-4@%xyz").error.find("unknown register"), std::string::npos);
  EXPECT_NE(x86("3@%eax").error.find("bad size"), std::string::npos);
  EXPECT_NE(x86("8@nosuch(%rip)").error.find("cannot resolve symbol 'nosuch'"), std::string::npos);
  EXPECT_NE(x86("8@dup(%rip)").error.find("several symbols"), std::string::npos);
  EXPECT_NE(x86("8@(%rsi,%rdx,3)").error.find("bad scale"), std::string::npos);
  EXPECT_FALSE(x86("8@%rip").ok());
}

// F4 (issue 10): values that do not fit were summed or negated in int64
// (undefined behaviour) and cached as a wrong recipe. Each now gets a reason;
// the values that do fit (INT64_MIN, a u64 bit pattern) are exact.
TEST(SdtArgs, ValuesThatDoNotFitAreReportedNotWrapped) {
  EXPECT_EQ(x86("8@$-0x8000000000000001").error,
            "argument '8@$-0x8000000000000001': constant in '$-0x8000000000000001' does not fit in 64 bits");
  EXPECT_EQ(x86("8@$0x10000000000000000").error,
            "argument '8@$0x10000000000000000': constant in '$0x10000000000000000' does not fit in 64 bits");
  EXPECT_EQ(x86("-4@-0x8000000000000000(%rbp)").error,
            "argument '-4@-0x8000000000000000(%rbp)': displacement -9223372036854775808 in "
            "'-0x8000000000000000(%rbp)' is larger than the 32 bits x86 encodes");
  EXPECT_EQ(x86("-4@-0x8000000000000001(%rbp)").error,
            "argument '-4@-0x8000000000000001(%rbp)': displacement in '-0x8000000000000001(%rbp)' does not fit in 64 "
            "bits");
  EXPECT_EQ(x86("8@0x7fffffffffffffff+1(%rax)").error,
            "argument '8@0x7fffffffffffffff+1(%rax)': displacement in '0x7fffffffffffffff+1(%rax)' does not fit in 64 "
            "bits");
  EXPECT_EQ(x86("8@0x80000000(%rax)").error,
            "argument '8@0x80000000(%rax)': displacement 2147483648 in '0x80000000(%rax)' is larger than the 32 bits "
            "x86 encodes");
  EXPECT_EQ(parse_sdt_args("-8@[x1, #-0x8000000000000000]", kMachineAarch64).error,
            "argument '-8@[x1, #-0x8000000000000000]': offset -9223372036854775808 in '[x1, #-0x8000000000000000]' "
            "is out of range for a memory operand");
  EXPECT_EQ(parse_sdt_args("-8@[x1, #-0x8000000000000001]", kMachineAarch64).error,
            "argument '-8@[x1, #-0x8000000000000001]': offset in '[x1, #-0x8000000000000001]' does not fit in 64 bits");
  EXPECT_EQ(parse_sdt_args("8@#0x1ffffffffffffffff", kMachineAarch64).error,
            "argument '8@#0x1ffffffffffffffff': constant in '#0x1ffffffffffffffff' does not fit in 64 bits");

  auto p = x86("8@$-0x8000000000000000 8@$0xffffffffffffffff -4@-0x80000000(%rbp) 4@0x7fffffff(%rax) "
               "-4@-0x10+0x8(%rbp)");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.args[0].disp, INT64_MIN);
  EXPECT_EQ(p.args[1].disp, -1);  // the 64-bit pattern
  EXPECT_EQ(p.args[2].disp, INT32_MIN);
  EXPECT_EQ(p.args[3].disp, INT32_MAX);
  EXPECT_EQ(p.args[4].disp, -8);
  auto r = x86("8@glob+0x7fffffffffffffff(%rip)");  // wraps as address arithmetic does, without UB
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(static_cast<uint64_t>(r.args[0].disp), 0x4010 + 0x7fffffffffffffffULL);
}

TEST(SdtArgs, Aarch64) {
  auto p = parse_sdt_args("8@x0 -4@[sp, 96] 4@[x1] 4@5 -4@w3", kMachineAarch64);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.args.size(), 5u);
  EXPECT_EQ(p.args[0].kind, ArgKind::Reg);
  EXPECT_EQ(p.args[1].kind, ArgKind::Mem);
  EXPECT_EQ(p.args[1].base, 31);
  EXPECT_EQ(p.args[1].disp, 96);
  EXPECT_EQ(p.args[2].base, 1);
  EXPECT_EQ(p.args[3].kind, ArgKind::Imm);
  EXPECT_EQ(p.args[3].disp, 5);
  EXPECT_EQ(p.args[4].base, 3);
}

TEST(SdtSpec, ParseAndGlob) {
  auto s = parse_probe_spec("%my*:req_*");
  EXPECT_TRUE(s.is_glob());
  EXPECT_TRUE(s.matches("myapp", "req_start"));
  EXPECT_FALSE(s.matches("myapp", "resp"));
  auto p = parse_probe_spec("%prov:ev@/bin/x");
  EXPECT_EQ(p.path, "/bin/x");
  EXPECT_FALSE(p.is_glob());
  EXPECT_THROW(parse_probe_spec("%:x"), sonde::Error);
  EXPECT_THROW(parse_probe_spec("%a:b:c"), sonde::Error);
}
