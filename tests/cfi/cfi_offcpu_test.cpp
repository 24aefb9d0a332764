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

// Blocked milliseconds per waiter thread: all of them, and those whose
// chain holds the waiter's function.
struct Blocked {
  std::map<std::string, double> all, named;
};
Blocked blocked_ms(const std::string& data) {
  auto r = run({sonde_bin(), "script", "-i", data, "-F", "comm,pid,tid,period,event,ip,sym"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Blocked b;
  for (const auto& s : parse_script(r.out)) {
    if (s.event != "offcpu-time") continue;
    b.all[s.comm] += static_cast<double>(s.period) / 1e6;
    if (s.has(s.comm)) b.named[s.comm] += static_cast<double>(s.period) / 1e6;
  }
  return b;
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
  Blocked with_cfi = blocked_ms(dir / "cfi.data"), with_fp = blocked_ms(dir / "fp.data");
  for (const char* waiter : {"nap", "wait_pipe", "wait_cond"}) {
    ASSERT_GT(measured[waiter], 100.0) << cfi.out;
    // Each waiter's blocked time, as the recording has it, is under its
    // function: most of it (a thread's first waits may come before the
    // recorder read the process's mappings), never more than it measured.
    EXPECT_GE(with_cfi.named[waiter], 0.6 * with_cfi.all[waiter]) << waiter;
    EXPECT_LE(with_cfi.named[waiter], 1.05 * measured[waiter]) << waiter;
    EXPECT_GT(with_fp.all[waiter], 0.0) << waiter;
    EXPECT_LT(with_fp.named[waiter], 0.2 * with_fp.all[waiter]) << waiter << ": the frame pointer found its caller";
  }
}

}  // namespace
}  // namespace sonde::test
