// script -F srcline, srccode and insn against perf 6.1's on the same
// recordings (sonde's converted to perf's file mode, and perf's own), line
// for line. The frames compared are the fixture's own (-S, --max-stack):
// perf 6.1 asks binutils' addr2line, which names the wrong file of a DWARF 5
// line table for inlined libc code (__libc_start_call_main is in
// libc_start_call_main.h, binutils says libc-start.c; eu-addr2line and
// sonde's libdw agree on the header), and prints ":0" for ld.so's assembly.
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

class ScriptSourceFields : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string bin = *dir_ / "two_mix";
    ASSERT_TRUE(compile_fixture("two_mix.c", bin));
    const std::string pipe = *dir_ / "pipe.data";
    auto r = run({sonde_bin(), "record", "-q", "-g", "-o", pipe, "--", bin, "0.3", "40"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run({sonde_bin(), "convert", "-i", pipe, "--to", "perf", "-o", *dir_ / "sonde.data"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = sh("perf record -q -g -o " + (*dir_ / "perf.data") + " -- " + bin + " 0.3 40 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }

  // The same arguments to both tools, on both recordings.
  static void expect_as_perf(const std::string& args, size_t at_least = 20) {
    for (const char* name : {"sonde.data", "perf.data"}) {
      const std::string data = *dir_ / name;
      auto ours = sh(sonde_bin() + " script -i " + data + " " + args);
      auto perf = sh("perf script -i " + data + " " + args + " 2>/dev/null");
      ASSERT_EQ(ours.exit_code, 0) << ours.err;
      ASSERT_EQ(perf.exit_code, 0);
      EXPECT_GE(lines(perf.out).size(), at_least) << name << " " << args;
      EXPECT_EQ(first_difference(ours.out, perf.out), "") << name << " " << args;
    }
  }
  static TempDir* dir_;
};
TempDir* ScriptSourceFields::dir_ = nullptr;

}  // namespace

// Each frame's "file:line" on the line below it.
TEST_F(ScriptSourceFields, SrclineAsPerf) {
  expect_as_perf("-S mix_a,mix_b --max-stack 2 -F comm,tid,ip,sym,srcline");
  expect_as_perf("-S mix_a,mix_b --max-stack 2 -F +srcline");
  expect_as_perf("-S mix_a,mix_b -G -F comm,ip,sym,dso,srcline");
  // A kernel frame without a vmlinux: the object and the address.
  auto ours = run({sonde_bin(), "script", "-i", *dir_ / "sonde.data", "-F", "ip,srcline", "-G"});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_TRUE(std::regex_search(ours.out, std::regex(R"(\n  \[kernel\.kallsyms\]\[ffff[0-9a-f]+\]\n)")) ||
              ours.out.find("[kernel.kallsyms]") == std::string::npos) << ours.out;
}

// The sampled line's text, once per thread until the line changes.
TEST_F(ScriptSourceFields, SrccodeAsPerf) {
  expect_as_perf("-S mix_a,mix_b -G -F tid,ip,sym,srccode");
  expect_as_perf("-S mix_a,mix_b --max-stack 2 -F tid,ip,sym,srccode,srcline");
  auto ours = run({sonde_bin(), "script", "-i", *dir_ / "sonde.data", "-S", "mix_a", "-G", "-F", "ip,srccode"});
  EXPECT_NE(ours.out.find("|12         for (unsigned long i = 0; i < n; i++) sink += i * i;\n"), std::string::npos)
      << ours.out;
}

// The sampled instruction's bytes (perf 6.1 without --xed); none for the
// kernel's.
TEST_F(ScriptSourceFields, InsnAsPerf) {
  expect_as_perf("-G -F comm,tid,ip,sym,insn");
  expect_as_perf("-S mix_a,mix_b --max-stack 2 -F comm,ip,sym,insn");
  expect_as_perf("-S mix_a,mix_b --max-stack 2 -F +srccode,+insn,+srcline");
}

TEST_F(ScriptSourceFields, SrclineWithoutIpIsAUsageError) {
  auto r = run({sonde_bin(), "script", "-i", *dir_ / "sonde.data", "-F", "comm,srcline"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "sonde: Display of source line number requested but sample IP is not selected (-F srcline needs ip)\n");
  auto perf = sh("perf script -i " + (*dir_ / "sonde.data") + " -F comm,srcline 2>&1");
  EXPECT_NE(perf.out.find("Display of source line number requested but sample IP is not"), std::string::npos);
}

// The object rebuilt after the recording (another build-id at the same
// path): its bytes are not the recorded program's, so no insn is printed.
TEST(ScriptInsn, AnotherBuildOfTheObjectPrintsNoBytes) {
  TempDir dir;
  const std::string bin = dir / "two_mix", data = dir / "rec.data";
  ASSERT_TRUE(compile_fixture("two_mix.c", bin));
  auto r = run({sonde_bin(), "record", "-q", "-o", data, "--", bin, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto before = run({sonde_bin(), "script", "-i", data, "-S", "mix_a,mix_b", "-F", "sym,ip,insn"});
  EXPECT_GT(count_lines_with(before.out, " insn: "), 0u) << before.out;
  ASSERT_TRUE(compile_fixture("two_mix.c", bin, "-O0 -DREBUILT=1"));
  auto after = run({sonde_bin(), "script", "-i", data, "-S", "mix_a,mix_b", "-F", "sym,ip,insn"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(count_lines_with(after.out, " insn: "), 0u) << after.out;
}
