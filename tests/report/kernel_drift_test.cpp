// The kernel-drift guard: records every fixture that a perf-comparison test
// records, on the kernel the suite runs on, and lists the tests whose input
// has frames that depend on the kernel build: the vdso (its code and symbols
// change with each build) and kernel addresses that kallsyms cannot name.
// Such frames are where perf and sonde have disagreed after a kernel change
// (report_compare.h normalises the one known quirk). A fixture with any
// sample in the vdso, or more than 1% at unnamed kernel addresses (another
// test's BPF program can run on the fixture's CPU), fails the guard: it is
// meant to stay out (tests/fixtures/fixture_stop.h), and the list says which
// comparisons to look at. Since a rare clock read may take no sample in one
// run, the fixtures' sources are also checked for the calls that enter the
// vdso. docs/testing.md: "Staying true across kernel builds".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_support.h"

using namespace sonde::test;

namespace {

struct ComparedFixture {
  const char* source;  // in tests/fixtures; "" for the demo workload
  const char* flags;
  const char* args;
};

// The fixtures that tests comparing with /usr/bin/perf record (sym_vdso.c
// is left out: the vdso is what its tests are about).
constexpr ComparedFixture kCompared[] = {
    {"hot_loop.c", "", "0.3"},         {"two_comms.c", "-fno-plt", "0.3"},
    {"sym_funcs.c", "", "30000000"},           {"sym_cxx_std.cpp", "-lstdc++", ""},
    {"sdt_forms.c", "-O2", "5000000"}, {"unwind_qsort.c", "-O2 -fomit-frame-pointer", "20"},
    {"", "", "0.3"},
};

struct DriftCount {
  size_t samples = 0, vdso = 0, unnamed_kernel = 0;
};

DriftCount count_drift(const std::string& script) {
  DriftCount c;
  bool vdso = false, kernel = false, any = false;
  auto end_sample = [&] {
    c.samples += any;
    c.vdso += vdso;
    c.unnamed_kernel += kernel;
    vdso = kernel = any = false;
  };
  for (const auto& l : lines(script)) {
    if (l.empty()) {
      end_sample();
      continue;
    }
    any = true;
    vdso |= l.find("([vdso])") != std::string::npos;
    kernel |= l.find("[unknown] ([kernel.kallsyms])") != std::string::npos;
  }
  end_sample();
  return c;
}

// The test sources that record `source` and run perf.
std::vector<std::string> comparisons_of(const std::string& source) {
  const std::string needle = source.empty() ? "demo_bin()" : "\"" + source + "\"";
  std::vector<std::string> files;
  const auto tests = std::filesystem::path(fixtures_dir()).parent_path();
  for (const auto& e : std::filesystem::recursive_directory_iterator(tests)) {
    if (e.path().extension() != ".cpp") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    if (s.find(needle) != std::string::npos && s.find("perf ") != std::string::npos)
      files.push_back(std::filesystem::relative(e.path(), tests).string());
  }
  return files;
}

}  // namespace

TEST(KernelDrift, PerfComparedFixturesStayOutOfKernelBuildDependentCode) {
  TempDir dir;
  const std::string kernel = sh("uname -r").out;
  for (const auto& f : kCompared) {
    const std::string name = *f.source ? f.source : "demo workload";
    SCOPED_TRACE(name);
    std::string bin = demo_bin();
    if (*f.source) {
      bin = dir / "fixture";
      ASSERT_TRUE(compile_fixture(f.source, bin, f.flags));
    }
    const std::string data = dir / "drift.data";
    auto r = sh(sonde_bin() + " record -q -g -o " + data + " -- " + bin + " " + f.args + " >/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const DriftCount c = count_drift(run({sonde_bin(), "script", "-i", data}).out);
    ASSERT_GT(c.samples, 0u);
    std::string tests;
    for (const auto& t : comparisons_of(f.source)) tests += " " + t;
    if (c.vdso + c.unnamed_kernel > 0)
      std::printf("kernel %s: %s: %zu of %zu samples in the vdso, %zu at unnamed kernel addresses; compared with perf by:%s\n",
                  kernel.c_str(), name.c_str(), c.vdso, c.samples, c.unnamed_kernel, tests.c_str());
    EXPECT_TRUE(c.vdso == 0 && 100 * c.unnamed_kernel <= c.samples)
        << name << " spends samples in code that changes with the kernel build (" << c.vdso << " vdso, "
        << c.unnamed_kernel << " unnamed kernel, of " << c.samples << "); the perf comparisons that record it:" << tests;
  }
}

// The calls that run in the vdso on x86-64, in any compared fixture's source.
TEST(KernelDrift, PerfComparedFixturesCallNothingThatRunsInTheVdso) {
  for (const auto& f : kCompared) {
    const std::string path = *f.source ? fixtures_dir() + "/" + f.source : fixtures_dir() + "/../../demo/demo_workload.c";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    for (const char* call : {"clock_gettime(", "gettimeofday(", "time(NULL", "time(0", "getcpu(", "clock_getres("})
      EXPECT_EQ(text.str().find(call), std::string::npos) << path << " calls " << call << " (runs in the vdso)";
  }
}

// The guard's counter sees what it looks for (so the guard can fail).
TEST(KernelDrift, CountsVdsoAndUnnamedKernelFrames) {
  const std::string script =
      "a 1/1 [000] 1.0: 1 cpu-clock:\n\t 7f00 __vdso_clock_gettime+0x56 ([vdso])\n\t 7f10 main+0x1 (/x)\n\n"
      "a 1/1 [000] 1.1: 1 cpu-clock:\n\t ffffffff81000000 [unknown] ([kernel.kallsyms])\n\n"
      "a 1/1 [000] 1.2: 1 cpu-clock:\n\t 7f10 main+0x1 (/x)\n";
  const DriftCount c = count_drift(script);
  EXPECT_EQ(c.samples, 3u);
  EXPECT_EQ(c.vdso, 1u);
  EXPECT_EQ(c.unnamed_kernel, 1u);
  EXPECT_EQ(comparisons_of("two_comms.c").empty(), false);
}
