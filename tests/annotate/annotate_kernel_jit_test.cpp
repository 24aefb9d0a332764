// Kernel and JIT code in sonde annotate, against perf annotate --stdio on
// the same recording.
//
// Kernel: this VM has neither a vmlinux nor /proc/kcore, and a test must
// not depend on one kernel build's layout. So the test takes the hottest
// kernel symbol of the recording, its address and extent from the running
// kernel's kallsyms, and links a stand-in vmlinux (with `ld`) that holds a
// code pattern at exactly that address, with the recorded kernel's
// build-id. perf annotate -k reads it as it reads a real vmlinux; sonde
// reads it with -k, and as a kcore copy with --kcore (an ELF whose PT_LOADs
// map kernel addresses, as /proc/kcore's do). The pattern's instructions
// (3-byte movs) do not fall where the kernel's do, so samples land inside
// instructions too, as with a vmlinux of another build.
//
// JIT: perf annotates JIT code only after `perf inject --jit` has written
// each jitdump load as an ELF file (its code at 0x80); sonde reads the code
// bytes from the jitdump itself. Same bytes, same instructions: the
// percentages in instruction order must be perf's.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>

#include "annotate/annotate_compare.h"
#include "jit/jit_files.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

const char* const kPercentTypes[] = {"local-period", "global-period", "local-hits"};

struct KernelSymbol {
  std::string name;
  uint64_t addr = 0, size = 0;
};

// The first [k] symbol of perf's report (hottest first) whose name is
// unique in kallsyms, with its extent (to the next symbol's address).
KernelSymbol hottest_kernel_symbol(const std::string& data) {
  auto report = run({"perf", "report", "-i", data, "--stdio", "--sort", "sym"});
  std::vector<std::pair<uint64_t, std::string>> ksyms;
  std::ifstream in("/proc/kallsyms");
  std::string addr, type, name;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    if (fields >> addr >> type >> name) ksyms.emplace_back(std::stoull(addr, nullptr, 16), name);
  }
  std::sort(ksyms.begin(), ksyms.end());
  static const std::regex kernel_row(R"(\[k\] (\S+)\s*$)");
  for (const auto& l : lines(report.out)) {
    std::smatch m;
    if (!std::regex_search(l, m, kernel_row)) continue;
    const std::string want = m[1];
    size_t found = 0, at = 0;
    for (size_t i = 0; i < ksyms.size(); ++i)
      if (ksyms[i].second == want) ++found, at = i;
    if (found != 1 || ksyms[at].first == 0) continue;
    size_t next = at + 1;
    while (next < ksyms.size() && ksyms[next].first == ksyms[at].first) ++next;
    if (next == ksyms.size()) continue;
    return {want, ksyms[at].first, ksyms[next].first - ksyms[at].first};
  }
  return {};
}

std::string kernel_build_id(const std::string& data) {
  auto ids = run({"perf", "buildid-list", "-i", data});
  for (const auto& l : lines(ids.out))
    if (l.find("[kernel.kallsyms]") != std::string::npos) return l.substr(0, l.find(' '));
  return "";
}

uint64_t kallsyms_address(const std::string& name) {
  std::ifstream in("/proc/kallsyms");
  std::string addr, type, sym;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    if (fields >> addr >> type >> sym && sym == name) return std::stoull(addr, nullptr, 16);
  }
  return 0;
}

// A stand-in vmlinux: `sym` at its running address, 3-byte `mov %rax,%rax`
// then nops, the build-id given, _text where the running kernel has it.
bool link_vmlinux(const TempDir& dir, const KernelSymbol& sym, const std::string& build_id, const std::string& out) {
  std::ofstream s(dir / "vmlinux.s");
  s << ".section .text,\"ax\"\n.globl " << sym.name << "\n.type " << sym.name << ",@function\n"
    << sym.name << ":\n.fill " << sym.size / 3 << ",3,0xc08948\n.fill " << sym.size % 3 << ",1,0x90\n.size "
    << sym.name << "," << sym.size << "\n";
  s.close();
  auto r = sh(fmt::format("as -o {0}/vmlinux.o {0}/vmlinux.s && ld -o {1} --build-id=0x{2} -Ttext={3:#x} "
                          "--defsym _text={4:#x} -e {5} {0}/vmlinux.o",
                          dir.path(), out, build_id, sym.addr, kallsyms_address("_text"), sym.name));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0;
}

class AnnotateKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(compile_fixture("annotate_syscalls.c", dir_ / "syscalls", "-O2"));
    auto rec = run({"perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", data_, dir_ / "syscalls", "400000"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    sym_ = hottest_kernel_symbol(data_);
    ASSERT_FALSE(sym_.name.empty()) << "no kernel symbol with samples and a unique name";
    build_id_ = kernel_build_id(data_);
    ASSERT_FALSE(build_id_.empty());
    ASSERT_TRUE(link_vmlinux(dir_, sym_, build_id_, vmlinux_));
  }
  TempDir dir_;
  std::string data_ = dir_ / "k.data";
  std::string vmlinux_ = dir_ / "vmlinux";
  KernelSymbol sym_;
  std::string build_id_;
};

}  // namespace

TEST_F(AnnotateKernel, VmlinuxAndKcoreCopyMatchPerfsVmlinuxAnnotation) {
  for (const char* type : kPercentTypes) {
    auto theirs = run({"perf", "annotate", "--stdio", "-i", data_, "-k", vmlinux_, "--percent-type", type, sym_.name});
    auto ours = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "-k", vmlinux_, "--percent-type", type, sym_.name});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    expect_same_percentages(theirs.out, ours.out, std::string(type) + " -k " + sym_.name);
    // kcore: the same bytes at the same addresses, symbols from kallsyms.
    auto kcore = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "--kcore", vmlinux_, "--percent-type", type,
                      sym_.name});
    ASSERT_EQ(kcore.exit_code, 0) << kcore.err;
    expect_same_percentages(theirs.out, kcore.out, std::string(type) + " --kcore " + sym_.name);
  }
  // Every instruction is the pattern's, at the kernel's addresses.
  auto ours = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "-k", vmlinux_, sym_.name});
  EXPECT_NE(ours.out.find(fmt::format("{:x}:", sym_.addr)), std::string::npos) << ours.out;
  EXPECT_NE(ours.out.find("mov    %rax,%rax"), std::string::npos) << ours.out;
}

namespace {

// The annotations in `text` whose header names `object` (perf 6.1 names
// samples in PLT stubs `_init`, sonde `write@plt`: user-space objects are
// compared in annotate_vs_perf_test.cpp, on a fixture without them).
std::string annotations_of(const std::string& text, const std::string& object) {
  std::string out;
  bool keep = false;
  for (const auto& l : lines(text)) {
    if (l.starts_with(" Percent |")) keep = l.find("Disassembly of " + object + " for") != std::string::npos;
    if (keep) out += l + "\n";
  }
  return out;
}

}  // namespace

// Without a symbol: perf's -k annotation of the kernel symbol is sonde's.
TEST_F(AnnotateKernel, EverySymbolWithTheVmlinux) {
  auto theirs = run({"perf", "annotate", "--stdio", "-i", data_, "-k", vmlinux_});
  auto ours = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "-k", vmlinux_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  expect_same_percentages(annotations_of(theirs.out, "vmlinux"), ours.out, "every symbol, -k");
  EXPECT_NE(ours.out.find("Disassembly of vmlinux for"), std::string::npos);
}

TEST_F(AnnotateKernel, VmlinuxOfAnotherKernelIsRefused) {
  const std::string other = dir_ / "other";
  ASSERT_TRUE(link_vmlinux(dir_, sym_, std::string(40, '1'), other));
  auto r = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "-k", other, sym_.name});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(fmt::format("sonde: cannot annotate {}: {}: build-id mismatch (file has {}, recorded {})",
                                   sym_.name, other, std::string(40, '1'), build_id_)),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto kcore = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "--kcore", dir_ / "no_such_kcore", sym_.name});
  EXPECT_EQ(kcore.exit_code, 2);
  EXPECT_EQ(kcore.err, "sonde: --kcore " + (dir_ / "no_such_kcore") + ": cannot read it: No such file or directory\n");
  auto not_elf = run({sonde_bin(), "annotate", "--stdio", "-i", data_, "-k", dir_ / "vmlinux.s", sym_.name});
  EXPECT_EQ(not_elf.exit_code, 2);
  EXPECT_EQ(not_elf.err, "sonde: -k " + (dir_ / "vmlinux.s") + ": not an ELF file (a vmlinux with symbols)\n");
}

namespace {

// perf record -k 1 (CLOCK_MONOTONIC, the jitdump's clock) of `command` in
// `dir`, then perf inject --jit: perf's view of the JIT code.
void record_and_inject(const TempDir& dir, const std::string& command) {
  auto rec = sh("cd " + dir.path() + " && perf record -q -k 1 -e cpu-clock -F 2000 -o p.data " + command);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto inj = run({"perf", "inject", "--jit", "-i", dir / "p.data", "-o", dir / "j.data"});
  ASSERT_EQ(inj.exit_code, 0) << inj.err;
}

// The hottest symbol of perf's report on the injected recording that
// contains `needle`.
std::string hottest_symbol_with(const std::string& data, const std::string& needle) {
  auto report = run({"perf", "report", "-i", data, "--stdio", "--sort", "sym"});
  static const std::regex row(R"(\[\.\] (.+?)\s*$)");
  for (const auto& l : lines(report.out)) {
    std::smatch m;
    if (std::regex_search(l, m, row) && m[1].str().find(needle) != std::string::npos) return m[1];
  }
  return "";
}

void expect_jit_matches(const TempDir& dir, const std::string& sym) {
  for (const char* type : kPercentTypes) {
    auto theirs = run({"perf", "annotate", "--stdio", "-i", dir / "j.data", "--percent-type", type, sym});
    auto ours = run({sonde_bin(), "annotate", "--stdio", "-i", dir / "p.data", "--percent-type", type, sym});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    auto want = percent_sequence(theirs.out);
    ASSERT_GT(want.size(), 1u) << theirs.out;
    EXPECT_EQ(percent_sequence(ours.out), want) << type << "\nperf:\n" << theirs.out << "\nsonde:\n" << ours.out;
    // Same samples in the header; the object is the jitdump, not perf's jitted-PID-N.so.
    auto samples = [](const std::string& t) { return t.substr(t.find(" for "), t.find(")") - t.find(" for ")); };
    EXPECT_EQ(samples(ours.out), samples(theirs.out));
    EXPECT_NE(ours.out.find("Disassembly of jit-"), std::string::npos) << ours.out;
  }
}

}  // namespace

TEST(AnnotateJit, TestTimeJitdumpMatchesPerfInject) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("jit_cfi.c", dir / "jit_cfi", "-O1 -fno-omit-frame-pointer"));
  record_and_inject(dir, dir / "jit_cfi cfi 800");
  expect_jit_matches(dir, "jit_spin");
}

TEST(AnnotateJit, NodeJitdumpMatchesPerfInject) {
  if (sh("command -v node >/dev/null").exit_code != 0) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  record_and_inject(dir, "node --perf-prof --no-turbo-inlining " + fixtures_dir() + "/jit_hot.js 2000");
  const std::string sym = hottest_symbol_with(dir / "j.data", "hotLoop");
  ASSERT_FALSE(sym.empty());
  expect_jit_matches(dir, sym);
  // V8's line table: the loop's source line is shown above its code.
  auto ours = run({sonde_bin(), "annotate", "--stdio", "-i", dir / "p.data", sym});
  EXPECT_NE(ours.out.find("for (let i = 0; i < n; i++)"), std::string::npos) << ours.out;
}

// Code named only by /tmp/perf-PID.map has no bytes to show: one line, exit 1.
TEST(AnnotateJit, PerfMapCodeHasNoBytes) {
  if (sh("command -v node >/dev/null").exit_code != 0) GTEST_SKIP() << "node is not installed";
  TempDir dir;
  auto rec = run({sonde_bin(), "record", "-q", "-o", dir / "m.data", "--", "node", "--perf-basic-prof",
                  "--no-turbo-inlining", fixtures_dir() + "/jit_hot.js", "800"});
  // node's /tmp/perf-PID.map goes; the recording keeps its copy (m.data.jit/).
  for (const auto& e : std::filesystem::directory_iterator(dir / "m.data.jit"))
    if (auto pid = sonde::jit::perf_map_pid(e.path().filename().string()))
      std::filesystem::remove("/tmp/perf-" + std::to_string(*pid) + ".map");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto report = run({sonde_bin(), "report", "-i", dir / "m.data", "--stdio", "--sort", "sym"});
  static const std::regex row(R"(\[\.\] (JS:\*hotLoop.*?)\s*$)");
  std::string sym;
  for (const auto& l : lines(report.out)) {
    std::smatch m;
    if (sym.empty() && std::regex_search(l, m, row)) sym = m[1];
  }
  ASSERT_FALSE(sym.empty()) << report.out;
  auto r = run({sonde_bin(), "annotate", "--stdio", "-i", dir / "m.data", sym});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("sonde: cannot annotate " + sym + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".map names JIT code but holds no code bytes"), std::string::npos) << r.err;
}
