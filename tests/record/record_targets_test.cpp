// -p and -a on a process the test starts itself (and kills by its pid).
#include <gtest/gtest.h>

#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

class RecordTargets : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_)); }
  void TearDown() override {
    if (victim_ > 0) {
      ::kill(victim_, SIGKILL);
      wait_for(victim_);
    }
  }
  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "t.data";
  pid_t victim_ = -1;
};

TEST_F(RecordTargets, PidRecordsARunningProcessUntilItExits) {
  victim_ = spawn({fixture_, "1.0"});  // returns once it has exec'ed
  auto r = run({sonde_bin(), "record", "-g", "-p", std::to_string(victim_), "-o", data_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(wait_for(victim_), 0);
  pid_t pid = victim_;
  victim_ = -1;
  auto f = read_recording(data_);
  EXPECT_EQ(f.bad_samples, 0u);
  EXPECT_GT(f.samples_of_pid(static_cast<uint32_t>(pid)), 500u);
  EXPECT_EQ(f.samples_of_pid(static_cast<uint32_t>(pid)), f.samples.size());
  // The mapping came from /proc (synthesized) and has the file's build-id.
  bool mapped = false, vdso = false;
  for (const auto& m : f.mmap2) {
    if (m.filename == fixture_ && m.pid == static_cast<uint32_t>(pid)) {
      mapped = true;
      EXPECT_EQ(m.build_id, readelf_build_id(fixture_));
    }
    if (m.filename == "[vdso]" && m.pid == static_cast<uint32_t>(pid)) {
      vdso = true;
      EXPECT_EQ(m.build_id, readelf_vdso_build_id());
    }
  }
  EXPECT_TRUE(mapped);
  EXPECT_TRUE(vdso);
  auto sym = run({"perf", "script", "-i", data_, "-F", "comm,ip,sym"});
  EXPECT_EQ(sym.exit_code, 0) << sym.err;
  EXPECT_FALSE(has_perf_complaint(sym.err)) << sym.err;
  EXPECT_GT(count_lines_with(sym.out, "hot_function"), 200u);
}

TEST_F(RecordTargets, SystemWideCapturesTheProcess) {
  victim_ = spawn({fixture_, "2.0"});
  auto r = run({sonde_bin(), "record", "-a", "-o", data_, "--", "sleep", "0.5"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  EXPECT_EQ(f.bad_samples, 0u);
  // Captured at all, and more than a stray sample: the victim's share of
  // the half second depends on how loaded the machine is (~2000 when idle).
  EXPECT_GT(f.samples_of_pid(static_cast<uint32_t>(victim_)), 100u);
  auto sym = run({"perf", "script", "-i", data_, "-F", "pid,ip,sym"});
  EXPECT_EQ(sym.exit_code, 0) << sym.err;
  EXPECT_FALSE(has_perf_complaint(sym.err)) << sym.err;
  EXPECT_GT(count_lines_with(sym.out, "hot_function"), 200u);
}

// perf record -p PID -- CMD: the pid is recorded while the command runs; the
// command itself is not recorded, and its exit status is sonde's.
TEST_F(RecordTargets, PidWithACommandRecordsThePidForTheCommandsDuration) {
  victim_ = spawn({fixture_, "30"});
  auto r = run({"timeout", "-s", "KILL", "60", sonde_bin(), "record", "-q", "-p", std::to_string(victim_), "-o",
                data_, "--", "sh", "-c", "sleep 0.5; exit 5"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  // The recording ended with the command: the pid still runs.
  EXPECT_EQ(::waitpid(victim_, nullptr, WNOHANG), 0);
  auto f = read_recording(data_);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.bad_samples, 0u);
  EXPECT_GT(f.samples_of_pid(static_cast<uint32_t>(victim_)), 100u);  // ~2000 at 4000 Hz
  EXPECT_EQ(f.samples_of_pid(static_cast<uint32_t>(victim_)), f.samples.size());
  for (const auto& m : f.mmap2) {
    if (m.pid != UINT32_MAX) {
      EXPECT_EQ(m.pid, static_cast<uint32_t>(victim_)) << m.filename;
    }
  }
}

// When every pid is gone first, the recording ends and the command gets
// SIGTERM, as perf does (perf exits 143 then too).
TEST_F(RecordTargets, PidWithACommandEndsWhenThePidsAreGone) {
  victim_ = spawn({fixture_, "0.3"});
  auto r = run({"timeout", "-s", "KILL", "60", sonde_bin(), "record", "-q", "-p", std::to_string(victim_), "-o",
                data_, "--", "sleep", "30"});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_EQ(wait_for(victim_), 0);
  victim_ = -1;
  auto f = read_recording(data_);
  EXPECT_EQ(f.truncated_bytes, 0u);
  EXPECT_GT(f.samples.size(), 0u);
}

TEST_F(RecordTargets, CpuListRestrictsSamplesToThoseCpus) {
  victim_ = spawn({fixture_, "2.0"});
  auto r = run({sonde_bin(), "record", "-C", "0", "-o", data_, "--", "sleep", "0.3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  ASSERT_GT(f.samples.size(), 0u);
  for (const auto& s : f.samples) EXPECT_EQ(s.cpu, 0u);
}

}  // namespace

namespace {

TEST(RecordInherit, ChildrenAreFollowedUnlessNoInherit) {
  TempDir dir;
  std::string fixture = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  // `; true` keeps sh from exec'ing the fixture in place: it must be a child.
  std::string cmd = fixture + " 0.3; true";
  auto with = run({sonde_bin(), "record", "-q", "-o", dir / "in.data", "--", "sh", "-c", cmd});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  auto without = run({sonde_bin(), "record", "-q", "--no-inherit", "-o", dir / "no.data", "--", "sh", "-c", cmd});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  auto count_child = [&](const std::string& data) {
    auto ps = run({"perf", "script", "-i", data, "-F", "comm"});
    return count_lines_with(ps.out, "hot_loop");
  };
  EXPECT_GT(count_child(dir / "in.data"), 200u);  // ~1200 on an idle machine
  EXPECT_EQ(count_child(dir / "no.data"), 0u);
}

TEST(RecordThreads, TidRecordsThatThread) {
  TempDir dir;
  std::string fixture = dir / "hot_loop";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  pid_t victim = spawn({fixture, "0.6"});  // returns once it has exec'ed
  auto r = run({sonde_bin(), "record", "-q", "-t", std::to_string(victim), "-o", dir / "t.data"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(wait_for(victim), 0);
  auto f = read_recording(dir / "t.data");
  EXPECT_GT(f.samples.size(), 200u);
  EXPECT_EQ(f.samples_of_pid(static_cast<uint32_t>(victim)), f.samples.size());
}

}  // namespace
