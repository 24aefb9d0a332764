// The drain's drop policy under forced pressure: small user-space buffer,
// and a sink that reads nothing for 1.5 s while the workload runs (the
// writer blocks on the pipe, the drain thread keeps emptying the rings).
// Every loss is counted by kind in the summary and is in the stream as
// LOST_SAMPLES; no side-band record is ever dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

struct Summary {
  long long lost = -1, kernel = -1, dropped = -1, cut = -1, cut_bytes = -1;
};

Summary parse_summary(const std::string& err) {
  Summary s;
  std::smatch m;
  static const std::regex lost(", ([0-9]+) lost, ");
  static const std::regex kinds(
      "lost by kind: ([0-9]+) by the kernel, ([0-9]+) dropped from the full user-space buffer; ([0-9]+) dwarf "
      "samples had their user stack cut \\(([0-9]+) bytes\\)");
  if (std::regex_search(err, m, lost)) s.lost = std::stoll(m[1]);
  if (std::regex_search(err, m, kinds)) {
    s.kernel = std::stoll(m[1]);
    s.dropped = std::stoll(m[2]);
    s.cut = std::stoll(m[3]);
    s.cut_bytes = std::stoll(m[4]);
  }
  return s;
}

long long total_lost(const std::string& report) {
  std::smatch m;
  static const std::regex re("# Total Lost Samples: ([0-9]+)");
  return std::regex_search(report, m, re) ? std::stoll(m[1]) : -1;
}

class RecordPressure : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_, "-O1")); }
  // Records into a pipe whose reader sleeps 1.5 s before reading.
  Summary record_into_a_stalled_pipe(const std::string& callgraph_and_rate) {
    auto r = sh(quoted(sonde_bin()) + " record -m 16 --user-buffer-size 256K " + callgraph_and_rate + " -o - -- '" +
                fixture_ + "' 0.5 2>'" + err_ + "' | { sleep 1.5; cat > '" + data_ + "'; }");
    EXPECT_EQ(r.exit_code, 0) << slurp(err_);
    return parse_summary(slurp(err_));
  }
  // The summary's counts are the stream's; perf and sonde report them.
  void expect_losses_in_the_stream(const Summary& s, const RecordingFacts& f) {
    EXPECT_EQ(static_cast<long long>(f.lost_samples), s.lost);
    EXPECT_EQ(static_cast<long long>(f.lost), s.kernel);
    EXPECT_EQ(s.kernel + s.dropped, s.lost);
    auto perf = run({"perf", "report", "--stdio", "-i", data_});
    ASSERT_EQ(perf.exit_code, 0) << perf.err;
    EXPECT_EQ(total_lost(perf.out), s.lost);
    auto ours = run({sonde_bin(), "report", "-i", data_});
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_EQ(total_lost(ours.out), s.lost);
  }
  // Every sample's process has its COMM; the workload's MMAP2 has its build-id.
  void expect_side_band_whole(const RecordingFacts& f) {
    for (const auto& smp : f.samples)
      ASSERT_NE(std::find(f.comm_pids.begin(), f.comm_pids.end(), smp.pid), f.comm_pids.end()) << smp.pid;
    bool workload_mapped = false;
    for (const auto& m : f.mmap2)
      if (m.filename == fixture_ && (m.prot & 4) && !m.build_id.empty()) workload_mapped = true;
    EXPECT_TRUE(workload_mapped);
    auto script = run({"perf", "script", "-i", data_});
    EXPECT_EQ(script.exit_code, 0);
    // perf warns of the lost samples; nothing else.
    static const std::regex complaint("(error|Error|failed|unexpected|out of order)");
    EXPECT_FALSE(std::regex_search(script.err, complaint)) << script.err.substr(0, 400);
  }
  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "data";
  std::string err_ = dir_ / "err.txt";
};

TEST_F(RecordPressure, DwarfStacksAreCutFirstThenSamplesDroppedAndEveryLossIsInTheStream) {
  Summary s = record_into_a_stalled_pipe("--call-graph dwarf -F 4000");
  ASSERT_GT(s.cut, 0) << slurp(err_);
  ASSERT_GT(s.dropped, 0) << slurp(err_);
  auto f = read_recording(data_);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  // A cut sample keeps 1024 of its stack bytes (the kernel's are at most
  // 8192, fewer near the top of the stack).
  long long cut = 0;
  for (const auto& smp : f.samples) {
    ASSERT_LE(smp.stack_user, 8192u);
    ASSERT_LE(smp.stack_dyn_size, smp.stack_user);
    cut += smp.stack_user == 1024;
  }
  EXPECT_EQ(cut, s.cut);
  EXPECT_GT(s.cut_bytes, 0);
  EXPECT_LE(s.cut_bytes, s.cut * (8192 - 1024));
  expect_losses_in_the_stream(s, f);
  expect_side_band_whole(f);
}

TEST_F(RecordPressure, FramePointerSamplesAreDroppedWholeAndCounted) {
  Summary s = record_into_a_stalled_pipe("-g -c 20000");
  EXPECT_EQ(s.cut, 0);
  ASSERT_GT(s.dropped, 0) << slurp(err_);
  auto f = read_recording(data_);
  ASSERT_TRUE(f.opened) << f.open_error;
  expect_losses_in_the_stream(s, f);
  expect_side_band_whole(f);
}

TEST_F(RecordPressure, ATooSmallUserBufferIsAUsageError) {
  auto r = run({sonde_bin(), "record", "--user-buffer-size", "64K", "-o", data_, "--", fixture_, "0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sonde: invalid --user-buffer-size 65536: at least 262144 bytes\n");
  EXPECT_FALSE(file_exists(data_));
  auto bad = run({sonde_bin(), "record", "--user-buffer-size", "lots", "-o", data_, "--", fixture_, "0.1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("invalid --user-buffer-size 'lots'"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1);
  EXPECT_FALSE(file_exists(data_));
}

}  // namespace
