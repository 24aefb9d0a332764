// JIT code unwound with its own CFI: tests/fixtures/jit_cfi.c copies a leaf
// with no frame (it leaves its caller's rbp in place) into executable
// memory and describes it in a jitdump with JIT_CODE_UNWINDING_INFO. With
// those tables, --call-graph dwarf finds the leaf's caller, call_jit; by
// frame pointers (the dump without tables, or -g) call_jit is skipped.
#include <gtest/gtest.h>

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <array>
#include <cstring>
#include <map>
#include <regex>
#include <string>

#include "jit/cfi_image.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

// The frames after each jit_spin leaf, from `sonde script -F ip,sym`.
struct Callers {
  size_t leaves = 0, from_call_jit = 0, then_main = 0;
};
Callers callers_of_jit_spin(const std::string& script) {
  static const std::regex frame(R"(^\s+[0-9a-f]+ (\S+).*$)");
  Callers c;
  std::vector<std::string> chain;
  auto flush = [&] {
    if (!chain.empty() && chain[0] == "jit_spin") {
      ++c.leaves;
      c.from_call_jit += chain.size() > 1 && chain[1] == "call_jit";
      c.then_main += chain.size() > 2 && chain[2] == "main";
    }
    chain.clear();
  };
  for (const auto& l : lines(script)) {
    std::smatch m;
    if (std::regex_match(l, m, frame))
      chain.push_back(m[1]);
    else
      flush();
  }
  flush();
  return c;
}

class JitCfi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    ASSERT_TRUE(compile_fixture("jit_cfi.c", *dir_ / "jit_cfi", "-O1 -g -fno-omit-frame-pointer"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  // Records the fixture in its folder (where its jitdump goes) and returns
  // the callers of its JIT leaf.
  static Callers record(const std::string& name, const std::string& mode, const std::string& call_graph) {
    const std::string data = *dir_ / (name + ".data");
    auto r = sh("cd " + dir_->path() + " && " + sonde_bin() + " record -q " + call_graph + " -o " + data +
                " -- ./jit_cfi " + mode + " 600");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto script = run({sonde_bin(), "script", "-F", "ip,sym", "-i", data});
    EXPECT_EQ(script.exit_code, 0) << script.err;
    return callers_of_jit_spin(script.out);
  }
  static TempDir* dir_;
};
TempDir* JitCfi::dir_ = nullptr;

TEST_F(JitCfi, TheJitdumpsUnwindingInfoFindsTheCallerFramePointersSkip) {
  Callers cfi = record("cfi", "cfi", "--call-graph dwarf");
  ASSERT_GT(cfi.leaves, 100u) << "600 ms in the JIT leaf at 4 kHz";
  EXPECT_EQ(cfi.from_call_jit, cfi.leaves);
  EXPECT_EQ(cfi.then_main, cfi.leaves);
  // The same code without tables: the frame-pointer fallback skips call_jit.
  Callers fp = record("nocfi", "nocfi", "--call-graph dwarf");
  ASSERT_GT(fp.leaves, 100u);
  EXPECT_EQ(fp.from_call_jit, 0u);
  Callers kernel_fp = record("fp", "cfi", "-g");
  ASSERT_GT(kernel_fp.leaves, 100u);
  EXPECT_EQ(kernel_fp.from_call_jit, 0u) << "the kernel's frame-pointer walk skips it too";
}

// The image libdwfl reads: a shared object whose vaddr 0 is the code, the
// tables right after it (8-aligned), with sections and PT_GNU_EH_FRAME.
TEST(JitCfiImage, TablesSitRightAfterTheCodeWithTheirSectionsAndSegment) {
  const std::array<uint8_t, 12> frame{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::array<uint8_t, 4> hdr{1, 0x1b, 3, 0x3b};
  auto image = sonde::jit::cfi_elf_image({13, frame, hdr});
  elf_version(EV_CURRENT);
  Elf* e = elf_memory(reinterpret_cast<char*>(image.data()), image.size());
  ASSERT_NE(e, nullptr);
  GElf_Ehdr eh;
  ASSERT_NE(gelf_getehdr(e, &eh), nullptr);
  EXPECT_EQ(eh.e_type, ET_DYN);
  EXPECT_EQ(eh.e_machine, EM_X86_64);
  size_t shstrndx = 0;
  ASSERT_EQ(elf_getshdrstrndx(e, &shstrndx), 0);
  std::map<std::string, GElf_Shdr> sections;
  for (Elf_Scn* s = elf_nextscn(e, nullptr); s; s = elf_nextscn(e, s)) {
    GElf_Shdr sh;
    gelf_getshdr(s, &sh);
    sections[elf_strptr(e, shstrndx, sh.sh_name)] = sh;
  }
  ASSERT_TRUE(sections.count(".eh_frame") && sections.count(".eh_frame_hdr"));
  EXPECT_EQ(sections[".eh_frame"].sh_addr, 16u) << "13 bytes of code, rounded up to 8";
  EXPECT_EQ(sections[".eh_frame_hdr"].sh_addr, 28u);
  EXPECT_EQ(std::memcmp(image.data() + sections[".eh_frame"].sh_offset, frame.data(), frame.size()), 0);
  EXPECT_EQ(std::memcmp(image.data() + sections[".eh_frame_hdr"].sh_offset, hdr.data(), hdr.size()), 0);
  size_t phnum = 0;
  elf_getphdrnum(e, &phnum);
  bool eh_segment = false;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    gelf_getphdr(e, static_cast<int>(i), &ph);
    if (i == 0) {
      EXPECT_EQ(ph.p_vaddr, 0u) << "the code is the image's vaddr 0";
    }
    eh_segment |= ph.p_type == PT_GNU_EH_FRAME && ph.p_vaddr == 28u && ph.p_memsz == hdr.size();
  }
  EXPECT_TRUE(eh_segment);
  elf_end(e);
}

}  // namespace
