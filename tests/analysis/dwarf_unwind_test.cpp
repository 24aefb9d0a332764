// --call-graph dwarf: sonde records the user registers and stack, and its
// readers unwind them with the objects' CFI. The fixture's hot function is a
// qsort callback, so every hot stack crosses libc's msort (no frame
// pointers): only CFI gets from there back to main. perf 6.1 unwinds the same
// samples on its own, which makes it the oracle, frame by frame.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "analysis/recording_walker.h"
#include "analysis/unwind_policy.h"
#include "format/stream_reader.h"
#include "support/test_support.h"

using namespace sonde::test;

namespace {

class DwarfUnwind : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    bin_ = *dir_ / "unwind_qsort";
    ASSERT_TRUE(compile_fixture("unwind_qsort.c", bin_, "-O2 -fomit-frame-pointer"));
    data_ = *dir_ / "dwarf.data";
    auto r = sh(sonde_bin() + " record -q -N --call-graph dwarf -o " + data_ + " -- " + bin_ + " 150 >/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
  static std::string bin_, data_;
};
TempDir* DwarfUnwind::dir_ = nullptr;
std::string DwarfUnwind::bin_, DwarfUnwind::data_;

// One list of function names per sample, leaf first, from `perf script
// -F ip,sym` or `sonde script` output (frames: "\t ADDR NAME+OFF (DSO)").
std::vector<std::vector<std::string>> chains(const std::string& script) {
  static const std::regex frame(R"(^\s+[0-9a-f]+ (.+?)(\+0x[0-9a-f]+)?( \(.*\))?$)");
  std::vector<std::vector<std::string>> out;
  bool in_sample = false;
  for (const auto& l : lines(script)) {
    if (l.empty()) {
      in_sample = false;
      continue;
    }
    std::smatch m;
    if ((l[0] == '\t' || l[0] == ' ') && std::regex_match(l, m, frame)) {
      if (!in_sample) out.emplace_back();
      in_sample = true;
      out.back().push_back(m[1]);
    }
  }
  return out;
}

size_t count_with(const std::vector<std::vector<std::string>>& cs, const std::string& leaf, const std::string& caller) {
  size_t n = 0;
  for (const auto& c : cs)
    if (!c.empty() && c.front() == leaf && std::find(c.begin(), c.end(), caller) != c.end()) ++n;
  return n;
}

}  // namespace

TEST_F(DwarfUnwind, EverySampleUnwindsToTheSameFramesAsPerf) {
  auto perf = sh("perf script --no-inline -F ip,sym -i " + data_ + " 2>/dev/null");
  ASSERT_EQ(perf.exit_code, 0);
  auto ours = run({sonde_bin(), "script", "-i", data_});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto p = chains(perf.out), s = chains(ours.out);
  ASSERT_GT(s.size(), 300u);
  ASSERT_EQ(s.size(), p.size());
  size_t same = 0;
  std::string first_difference;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == p[i]) {
      ++same;
    } else if (first_difference.empty()) {
      for (const auto& f : p[i]) first_difference += " perf:" + f;
      first_difference += "\n";
      for (const auto& f : s[i]) first_difference += " sonde:" + f;
    }
  }
  // Every sample has agreed in every run so far (11,432 of 11,432 in the
  // bench); perf unwinds with libunwind, sonde with libdw, so a stray sample
  // where the two libraries end a stack differently is tolerated: 1 in 200.
  EXPECT_GE(same * 200, s.size() * 199) << same << " of " << s.size() << "; first:\n" << first_difference;
  // And the stacks are whole: the callback's samples reach main through
  // libc's qsort.
  size_t in_callback = count_with(s, "cmp_desc", "cmp_desc");
  EXPECT_GT(in_callback, 50u);
  EXPECT_EQ(count_with(s, "cmp_desc", "main"), in_callback);
  EXPECT_EQ(count_with(s, "cmp_desc", "sort_round"), in_callback);
}

TEST_F(DwarfUnwind, ReportAttributesTheCallbackToItsCallersWhereFramePointersCannot) {
  auto children = [](const std::string& out, const std::string& sym) {
    static const std::regex row(R"(^\s+([0-9.]+)%\s+[0-9.]+%.*\[\.\] (\S+)\s*$)");
    for (const auto& l : lines(out)) {
      std::smatch m;
      if (std::regex_match(l, m, row) && m[2] == sym) return std::stod(m[1]);
    }
    return 0.0;
  };
  auto rep = run({sonde_bin(), "report", "--children", "--sort", "sym", "-i", data_});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_GT(children(rep.out, "main"), 95.0) << rep.out;
  EXPECT_GT(children(rep.out, "sort_round"), 95.0) << rep.out;
  // The same program with frame-pointer chains: libc's msort has none, so
  // most samples never reach main.
  std::string fp = *dir_ / "fp.data";
  auto r = sh(sonde_bin() + " record -q -N -g -o " + fp + " -- " + bin_ + " 150 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fp_rep = run({sonde_bin(), "report", "--children", "--sort", "sym", "-i", fp});
  EXPECT_LT(children(fp_rep.out, "main"), 50.0) << fp_rep.out;
}

TEST_F(DwarfUnwind, PerfsOwnDwarfRecordingUnwindsTheSame) {
  std::string pd = *dir_ / "perf-dwarf.data";
  auto r = sh("perf record -q -N --call-graph dwarf -o " + pd + " -- " + bin_ + " 60 >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto perf = sh("perf script --no-inline -F ip,sym -i " + pd + " 2>/dev/null");
  auto ours = run({sonde_bin(), "script", "-i", pd});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto p = chains(perf.out), s = chains(ours.out);
  ASSERT_EQ(s.size(), p.size());
  ASSERT_GT(s.size(), 100u);
  size_t same = 0;
  for (size_t i = 0; i < s.size(); ++i) same += s[i] == p[i];
  EXPECT_GE(same * 200, s.size() * 199) << same << " of " << s.size();
}

// Unwinding out of the vdso needs its CFI. With no cached copy (-N, an empty
// cache), the running kernel's own vdso serves, since its build-id matches.
TEST_F(DwarfUnwind, VdsoFramesUnwindWithoutACachedCopy) {
  std::string bin = *dir_ / "vdso_loop";
  ASSERT_TRUE(compile_fixture("sym_vdso.c", bin, "-O2 -fomit-frame-pointer"));
  std::string env = "SONDE_BUILDID_DIR=" + (*dir_ / "empty-cache") + " ";
  std::string data = *dir_ / "vdso.data";
  // (The fixture's exit status is its checksum's low bit.)
  auto r = sh(env + sonde_bin() + " record -q -N --call-graph dwarf -o " + data + " -- sh -c '" + bin +
              " 3000000 || true'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ours = sh(env + sonde_bin() + " script -i " + data);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto s = chains(ours.out);
  size_t in_vdso = count_with(s, "__vdso_clock_gettime", "__vdso_clock_gettime");
  EXPECT_GT(in_vdso, 20u) << ours.out.substr(0, 3000);
  EXPECT_EQ(count_with(s, "__vdso_clock_gettime", "main"), in_vdso) << ours.out.substr(0, 3000);
  EXPECT_FALSE(std::filesystem::exists(*dir_ / "empty-cache/[vdso]")) << "-N keeps nothing";
}

// A probe hit is a sample too: with --call-graph dwarf each one carries the
// stack that led to the probe, unwound like any other.
TEST_F(DwarfUnwind, SdtProbeHitsCarryTheirWholeStack) {
  std::string bin = *dir_ / "forms";
  ASSERT_TRUE(compile_fixture("sdt_forms.c", bin, "-O2 -fomit-frame-pointer"));
  std::string data = *dir_ / "sdt.data";
  auto r = sh(sonde_bin() + " record -q -N --call-graph dwarf -e '%sfix:regs' -o " + data + " -- " + bin +
              " 7 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ours = run({sonde_bin(), "script", "-i", data});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(count_lines_with(ours.out, "%sfix:regs: arg1=-5 arg2=250"), 7u) << ours.out;
  size_t whole = 0;
  for (const auto& c : chains(ours.out))
    whole += std::find(c.begin(), c.end(), "main") != c.end() &&
             std::find(c.begin(), c.end(), "__libc_start_call_main") != c.end();
  EXPECT_EQ(whole, 7u) << ours.out;
}

// Without the program's binary (deleted, nothing cached) its samples cannot
// be unwound: they keep the sampled address, and the reader says how many.
TEST_F(DwarfUnwind, SamplesThatCannotBeUnwoundAreCountedInANote) {
  std::string bin = *dir_ / "gone";
  ASSERT_TRUE(compile_fixture("unwind_qsort.c", bin, "-O2 -fomit-frame-pointer"));
  std::string env = "SONDE_BUILDID_DIR=" + (*dir_ / "no-cache") + " ";
  std::string data = *dir_ / "gone.data";
  auto r = sh(env + sonde_bin() + " record -q -N --call-graph dwarf -o " + data + " -- " + bin + " 60 >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove(bin);
  auto script = sh(env + sonde_bin() + " script -i " + data);
  ASSERT_EQ(script.exit_code, 0) << script.err;
  // Samples in the binary itself (cmp_desc, sort_round) cannot be walked:
  // there is no CFI to start from.
  size_t leaf_in_binary = 0;
  for (const auto& c : chains(script.out)) leaf_in_binary += c.size() == 1 && c.front() == "[unknown]";
  EXPECT_GT(leaf_in_binary, 20u) << script.out.substr(0, 2000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(script.err, m, std::regex(R"(sonde script: (\d+) of (\d+) samples with a user stack were not unwound past the sampled function)")))
      << script.err;
  EXPECT_GE(std::stoul(m[1]), leaf_in_binary);
  auto rep = sh(env + sonde_bin() + " report -i " + data);
  EXPECT_NE(rep.out.find("# note: " + std::string(m[1]) + " of " + std::string(m[2]) + " samples with a user stack"),
            std::string::npos)
      << rep.out.substr(0, 3000);
}

// The unwinder knows x86-64's registers: samples recorded on another
// architecture keep their sampled address instead of a walk made with the
// wrong register map.
TEST_F(DwarfUnwind, AnotherArchitecturesSamplesAreNotWalked) {
  std::ifstream in(data_, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto at = bytes.find(std::string("x86_64\0", 7));  // the ARCH feature's string
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 7, std::string("ppc64\0\0", 7));
  std::string other = *dir_ / "ppc64.data";
  std::ofstream(other, std::ios::binary) << bytes;
  auto ours = run({sonde_bin(), "script", "-i", other});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto s = chains(ours.out);
  ASSERT_GT(s.size(), 300u);
  EXPECT_EQ(count_with(s, "cmp_desc", "main"), 0u);
  EXPECT_EQ(count_with(s, "cmp_desc", "cmp_desc"), count_with(chains(run({sonde_bin(), "script", "-i", data_}).out),
                                                              "cmp_desc", "cmp_desc"));
}

// Four processes of one binary: each object file (the fixture, libc, ...)
// is opened and mapped once for the whole report, not once per process.
TEST_F(DwarfUnwind, EachObjectFileIsMappedOncePerReportWhateverTheProcesses) {
  const std::string data = *dir_ / "four.data";
  auto r = sh(sonde_bin() + " record -q -N --call-graph dwarf -o " + data + " -- sh -c '" + bin_ + " 40; " + bin_ +
              " 40; " + bin_ + " 40; " + bin_ + " 40' >/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reader = sonde::format::open_recording(data);
  const sonde::analysis::DwarfUnwinder* unwinder = nullptr;
  auto dwarf = sonde::analysis::dwarf_unwinding("");
  sonde::analysis::RecordingWalker walker(*reader, [&](const sonde::format::Session& s) {
    auto u = dwarf(s);
    unwinder = u.get();
    return u;
  });
  walker.run([](const sonde::format::Sample&) {});
  ASSERT_NE(unwinder, nullptr);
  const auto& st = unwinder->stats();
  EXPECT_GE(st.sessions, 4u) << "the four processes";
  EXPECT_GT(st.unwound, st.samples / 2);
  // sh, the fixture, libc, ld.so and the vdso at most: once each.
  EXPECT_LE(st.objects, 5u);
  EXPECT_GE(st.objects, 2u);
}
