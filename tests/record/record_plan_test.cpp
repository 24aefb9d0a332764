// The recorder's plan (record/record_plan.h): options and the kernel's
// capabilities in, a resolved plan or one usage error out, with no kernel
// and no file touched.
#include <string>

#include <gtest/gtest.h>

#include "record/record_plan.h"
#include "util/error.h"

namespace sonde::record {
namespace {

// Assigned by copy: `o.output = "-"` inlines into a one-byte replace that
// gcc 12 at -O3 flags as overlapping (-Wrestrict, a false positive).
const std::string kStdout = "-";

RecordOptions workload() {
  RecordOptions o;
  o.command = {"/bin/true"};
  return o;
}

KernelFacts kernel(uint64_t max_rate = 100000) {
  KernelFacts k;
  k.max_sample_rate = max_rate;
  k.monotonic_clock = true;
  return k;
}

// The error's message, or "" when planning succeeds.
std::string usage_error(const RecordOptions& o, const KernelFacts& k = kernel()) {
  try {
    plan_recording(o, k);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    return e.what();
  }
  return "";
}

TEST(RecordPlan, DefaultsAreFourThousandHertzOnTheForkedCommand) {
  RecordPlan p = plan_recording(workload(), kernel());
  EXPECT_EQ(p.freq, kDefaultFreq);
  EXPECT_TRUE(p.workload);
  EXPECT_FALSE(p.tasks || p.system_wide || p.directory || p.merged);
  EXPECT_TRUE(p.freq_lowered.empty());
  EXPECT_TRUE(p.mono_clock);
}

TEST(RecordPlan, AFrequencyAboveTheKernelsLimitIsLoweredAndSaid) {
  RecordOptions o = workload();
  o.freq = 50000;
  RecordPlan p = plan_recording(o, kernel(25000));
  EXPECT_EQ(p.freq, 25000u);
  EXPECT_EQ(p.freq_lowered, "-F 50000 lowered to 25000 (kernel.perf_event_max_sample_rate)");
  o.freq.reset();
  o.freq_max = true;
  EXPECT_EQ(plan_recording(o, kernel(25000)).freq, 25000u);
  EXPECT_EQ(plan_recording(o, kernel(0)).freq, kDefaultFreq);  // limit unknown
}

TEST(RecordPlan, ConflictingOptionsAreUsageErrors) {
  RecordOptions o = workload();
  o.freq = 100;
  o.period = 10;
  EXPECT_EQ(usage_error(o), "-F and -c cannot be used together");
  o = workload();
  o.pids = {1};
  o.system_wide = true;
  EXPECT_EQ(usage_error(o), "-p/-t cannot be combined with -a/-C");
  o = RecordOptions{};
  EXPECT_EQ(usage_error(o), "nothing to record: give a command after --, or -p, -t or -a");
  o = workload();
  o.mmap_pages = 3;
  EXPECT_EQ(usage_error(o), "invalid -m 3: the number of pages must be a power of two");
  o = workload();
  o.switch_output.enabled = true;
  o.output = kStdout;
  EXPECT_EQ(usage_error(o), "--switch-output cannot be used with -o - (a pipe has no files to switch)");
}

TEST(RecordPlan, TargetsDecideWhatTheCommandIs) {
  RecordOptions o = workload();
  o.pids = {1};
  RecordPlan p = plan_recording(o, kernel());
  EXPECT_TRUE(p.tasks);
  EXPECT_FALSE(p.workload);  // the command only times the recording
  o.pids.clear();
  o.cpus = {0};
  p = plan_recording(o, kernel());
  EXPECT_TRUE(p.system_wide);
  EXPECT_FALSE(p.workload);
}

TEST(RecordPlan, ThreadsWriteADirectoryOrMergeIntoAPipe) {
  RecordOptions o = workload();
  o.threads = true;
  o.output = "rec.d";
  RecordPlan p = plan_recording(o, kernel());
  EXPECT_TRUE(p.directory);
  EXPECT_FALSE(p.merged);
  o.output = kStdout;
  p = plan_recording(o, kernel());
  EXPECT_TRUE(p.merged);
  KernelFacts old = kernel();
  old.monotonic_clock = false;
  EXPECT_THROW(plan_recording(o, old), Error);  // the merge needs one clock
}

TEST(RecordPlan, BuildIdModes) {
  RecordOptions o = workload();
  o.build_id_mode = BuildIdMode::Kernel;
  KernelFacts k = kernel();
  k.build_id_in_mmap2 = true;
  EXPECT_TRUE(plan_recording(o, k).kernel_build_ids);
  k.build_id_in_mmap2 = false;
  EXPECT_THROW(plan_recording(o, k), Error);
  o.build_id_mode = BuildIdMode::None;
  RecordPlan p = plan_recording(o, kernel());
  EXPECT_TRUE(p.build_ids_off);
  EXPECT_FALSE(p.kernel_build_ids);
}

}  // namespace
}  // namespace sonde::record
