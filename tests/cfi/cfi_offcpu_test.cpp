// --off-cpu --call-graph cfi: the off-CPU program walks user stacks at
// switch-out with the same CFI walker and tables, so a thread blocked in a
// libc wrapper (nanosleep, read, pthread_cond_wait) built without frame
// pointers is attributed to its caller, with -g-sized samples. The
// fixture is compiled without frame pointers too: with -g none of its
// waits reach their function.
#include <gtest/gtest.h>

#include <map>

#include "../offcpu/offcpu_harness.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

// Off-CPU milliseconds per waiter whose chain holds the waiter's function.
std::map<std::string, double> attributed_ms(const std::string& data) {
  auto r = run({sonde_bin(), "script", "-i", data, "-F", "comm,pid,tid,period,event,ip,sym"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> ms;
  for (const auto& s : parse_script(r.out))
    if (s.event == "offcpu-time" && s.has(s.comm)) ms[s.comm] += static_cast<double>(s.period) / 1e6;
  return ms;
}

TEST(CfiOffcpu, BlockedTimeGoesToTheCallersOfLibcWrappers) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("offcpu_waits.c", dir / "waits", "-O2 -fomit-frame-pointer -pthread"));
  auto cfi = run({sonde_bin(), "record", "-q", "-e", "dummy", "--off-cpu", "--call-graph", "cfi", "-o",
                  dir / "cfi.data", "--", dir / "waits"});
  ASSERT_EQ(cfi.exit_code, 0) << cfi.err;
  auto fp = run({sonde_bin(), "record", "-q", "-e", "dummy", "--off-cpu", "-g", "-o", dir / "fp.data", "--",
                 dir / "waits"});
  ASSERT_EQ(fp.exit_code, 0) << fp.err;
  auto measured = fixture_ms(cfi.out);
  auto with_cfi = attributed_ms(dir / "cfi.data"), with_fp = attributed_ms(dir / "fp.data");
  for (const char* waiter : {"nap", "wait_pipe", "wait_cond"}) {
    ASSERT_GT(measured[waiter], 100.0) << cfi.out;
    // The first wait of a thread may come before the recorder read the
    // process's mappings: most of the time, not all.
    EXPECT_GE(with_cfi[waiter], 0.8 * measured[waiter]) << waiter;
    EXPECT_LE(with_cfi[waiter], 1.05 * measured[waiter]) << waiter;
    EXPECT_LT(with_fp[waiter], 0.2 * measured[waiter]) << waiter << ": the frame pointer found its caller";
  }
}

}  // namespace
}  // namespace sonde::test
