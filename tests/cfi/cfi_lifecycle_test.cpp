// Nothing `sonde record --call-graph cfi` loads outlives it: its program
// (held by its fd and by the sampling events' fds) and its maps go with
// the recorder after a normal end, SIGINT and SIGKILL. Checked by the ids
// of the programs this recorder held, never by what else is loaded.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>


#include "../offcpu/offcpu_harness.h"
#include "support/test_support.h"

namespace sonde::test {
namespace {

// Starts `sonde record --call-graph cfi ... -- perl` (a loop of `n`
// additions) and waits until it holds its program.
pid_t start_recorder(const std::string& out, const std::string& n, BpfIds& ids) {
  return start_sonde_until({"record", "-q", "--call-graph", "cfi", "-o", out, "--", "/usr/bin/perl", "-e",
                            "my $s=0; $s += $_ for 1.." + n},
                           [](const BpfIds& held) { return !held.progs.empty(); }, ids);
}

TEST(CfiLifecycle, NothingStaysAfterTheWorkloadEnds) {
  TempDir dir;
  BpfIds ids;
  pid_t rec = start_recorder(dir / "a.data", "3000000", ids);
  ASSERT_FALSE(ids.progs.empty());
  int st = wait_status(rec);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_TRUE(bpf_ids_gone(ids));
}

TEST(CfiLifecycle, NothingStaysAfterSigint) {
  TempDir dir;
  BpfIds ids;
  pid_t rec = start_recorder(dir / "b.data", "100000000", ids);
  ASSERT_FALSE(ids.progs.empty());
  // Until a stack walked to its root is in the file.
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "b.data", "-F", "ip,sym"});
    return count_lines_with(s.out, "__libc_start_call_main") > 0;
  }));
  kill(rec, SIGINT);
  int st = wait_status(rec);
  EXPECT_TRUE(WIFEXITED(st)) << st;
  EXPECT_TRUE(bpf_ids_gone(ids));
  auto script = run({sonde_bin(), "script", "-i", dir / "b.data", "-F", "comm,pid,tid,period,event,ip,sym"});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_GT(count_lines_with(script.out, "__libc_start_call_main"), 0u);
}

TEST(CfiLifecycle, NothingStaysAfterSigkill) {
  TempDir dir;
  BpfIds ids;
  pid_t rec = start_recorder(dir / "c.data", "100000000", ids);
  ASSERT_FALSE(ids.progs.empty());
  // Until samples are in the file: the program runs on them.
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-i", dir / "c.data", "-F", "ip"});
    return !s.out.empty();
  }));
  const std::vector<pid_t> children = children_of(rec);
  kill(rec, SIGKILL);
  wait_status(rec);
  for (pid_t child : children) kill(child, SIGKILL);  // the workload outlives its recorder: end it, by pid
  EXPECT_TRUE(bpf_ids_gone(ids));
}

}  // namespace
}  // namespace sonde::test
