// perf record's everyday flags on sonde record, each checked with perf on
// the recording: -s, -T, --all-user, --all-kernel, --user-callchain, -v, -B.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "format/perf_abi.h"
#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;
using namespace sonde::uapi;  // PERF_RECORD_*

namespace {

// perf evlist -v's line for each event.
std::vector<std::string> evlist(const std::string& data) {
  auto r = run({"perf", "evlist", "-v", "-i", data});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return lines(r.out);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class RecordFlags : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", hot_loop_)); }
  // sonde record -q ARGS -o DATA -- CMD..., which must succeed.
  void record(std::vector<std::string> args, const std::vector<std::string>& cmd) {
    std::vector<std::string> argv = {sonde_bin(), "record", "-q"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-o", data_, "--"});
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    auto r = run(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    last_err_ = r.err;
  }
  TempDir dir_;
  std::string hot_loop_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "rec.data";
  std::string last_err_;
  // Mostly kernel time: copying zeros into /dev/null.
  std::vector<std::string> kernel_work_ = {"dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=400"};
};

// perf record -s: inherit_stat and the times in read_format, so each exiting
// thread leaves a READ record; perf report -T prints them per thread.
TEST_F(RecordFlags, StatGivesPerfReportItsPerThreadCounts) {
  record({"-s"}, {"sh", "-c", "/bin/true; /bin/true"});
  for (const auto& line : evlist(data_)) {
    EXPECT_TRUE(has(line, "inherit_stat: 1")) << line;
    EXPECT_TRUE(has(line, "read_format: TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID,")) << line;
  }
  auto f = read_recording(data_);
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_GE(std::count(f.types.begin(), f.types.end(), uint32_t{PERF_RECORD_READ}), 2) << "one per exited child";
  auto t = run({"perf", "report", "-T", "--stdio", "-i", data_});
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_FALSE(has_perf_complaint(t.err)) << t.err;
  // perf's table: "#  PID   TID  cpu-clock" (widths follow the pids), then a row per thread.
  static const std::regex table("#\\s+PID\\s+TID\\s+cpu-clock\n +[0-9]+ +[0-9]+ +[0-9]+\n");
  EXPECT_TRUE(std::regex_search(t.out, table)) << t.out;
}

// -T: sonde always records the time; the flag is accepted and the samples
// carry it.
TEST_F(RecordFlags, TimestampIsAcceptedAndEverySampleHasATime) {
  record({"-T"}, {hot_loop_, "0.05"});
  for (const auto& line : evlist(data_)) EXPECT_TRUE(has(line, "|TIME|")) << line;
  auto s = run({"perf", "script", "-i", data_, "-F", "time"});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_GT(lines(s.out).size(), 0u);
}

TEST_F(RecordFlags, AllUserExcludesTheKernelOnEveryEvent) {
  record({"--all-user", "-e", "cpu-clock,page-faults:k"}, {hot_loop_, "0.2"});
  auto ev = evlist(data_);
  ASSERT_EQ(ev.size(), 2u);
  for (const auto& line : ev) {
    EXPECT_TRUE(has(line, "exclude_kernel: 1")) << line;
    EXPECT_FALSE(has(line, "exclude_user")) << line;  // --all-user wins over :k, as in perf
  }
  auto f = read_recording(data_);
  ASSERT_GT(f.samples.size(), 0u);
  for (const auto& s : f.samples) EXPECT_EQ(s.cpumode, sonde::format::kMiscUser);
}

TEST_F(RecordFlags, AllKernelExcludesUserSpaceOnEveryEvent) {
  record({"--all-kernel", "-e", "cpu-clock,page-faults"}, kernel_work_);
  auto ev = evlist(data_);
  ASSERT_EQ(ev.size(), 2u);
  for (const auto& line : ev) {
    EXPECT_TRUE(has(line, "exclude_user: 1")) << line;
    EXPECT_FALSE(has(line, "exclude_kernel")) << line;
  }
  auto f = read_recording(data_);
  ASSERT_GT(f.samples.size(), 0u);
  for (const auto& s : f.samples) EXPECT_EQ(s.cpumode, sonde::format::kMiscKernel);
}

// The kernel's part of each call chain is left out (the same workload's
// chains are full of kernel frames without the flag); without a call graph
// it changes nothing, as in perf.
TEST_F(RecordFlags, UserCallchainLeavesTheKernelOutOfCallChains) {
  record({"-g", "--user-callchain"}, kernel_work_);
  for (const auto& line : evlist(data_)) EXPECT_TRUE(has(line, "exclude_callchain_kernel: 1")) << line;
  auto with = run({"perf", "script", "-i", data_, "-F", "ip,dso"});
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(count_lines_with(with.out, "[kernel.kallsyms]"), 0u);
  EXPECT_GT(count_lines_with(with.out, "libc.so"), 0u) << with.out.substr(0, 2000);

  record({"-g"}, kernel_work_);
  auto without = run({"perf", "script", "-i", data_, "-F", "ip,dso"});
  EXPECT_GT(count_lines_with(without.out, "[kernel.kallsyms]"), 0u);

  record({"--user-callchain"}, {"true"});
  for (const auto& line : evlist(data_)) EXPECT_FALSE(has(line, "exclude_callchain_kernel")) << line;
}

// -v: one line per event opened (per CPU), whose ids are the recording's,
// and one for the file.
TEST_F(RecordFlags, VerboseSaysWhatWasOpenedOneLineEach) {
  auto r = run({sonde_bin(), "record", "-v", "-e", "cpu-clock,page-faults", "-o", data_, "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static const std::regex opened(R"(^sonde record: opened (cpu-clock|page-faults) \(type 1, config 0x[0-9a-f]+\) on cpu [0-9]+ for pid [0-9]+: id ([0-9]+)$)");
  std::set<std::string> ids;
  size_t n_opened = 0;
  for (const auto& line : lines(r.err)) {
    std::smatch m;
    if (!std::regex_match(line, m, opened)) continue;
    ++n_opened;
    ids.insert(m[2]);
  }
  auto online = lines(run({"getconf", "_NPROCESSORS_ONLN"}).out);
  ASSERT_EQ(online.size(), 1u);
  EXPECT_EQ(n_opened, 2 * std::stoul(online[0])) << r.err;
  EXPECT_EQ(ids.size(), n_opened);
  EXPECT_EQ(count_lines_with(r.err, "sonde record: writing " + data_), 1u) << r.err;
  // The ids perf reads from the recording's EVENT_DESC.
  auto h = run({"perf", "report", "--header-only", "-i", data_});
  for (const auto& id : ids) EXPECT_TRUE(std::regex_search(h.out, std::regex("id = \\{[^}]*\\b" + id + "\\b"))) << id;
}

// -B: no build-id is read or written (every MMAP2 in the inode form, the
// kernel's too), nothing goes into the build-id cache, and both readers
// still name the hot function from the mapped file.
TEST_F(RecordFlags, NoBuildidWritesMappingsWithoutIdsAndKeepsNothing) {
  std::string cache = dir_ / "cache";
  record({"-B", "--buildid-dir", cache}, {hot_loop_, "0.2"});
  auto f = read_recording(data_);
  ASSERT_GT(f.mmap2.size(), 1u);
  for (const auto& m : f.mmap2) EXPECT_EQ(m.build_id, "") << m.filename;
  EXPECT_FALSE(file_exists(cache));
  auto ids = run({"perf", "buildid-list", "-i", data_});
  EXPECT_EQ(ids.exit_code, 0) << ids.err;
  for (const auto& line : lines(ids.out)) EXPECT_FALSE(std::regex_search(line, std::regex("^[0-9a-f]{40}"))) << line;
  auto p = run({"perf", "report", "--stdio", "-i", data_, "--sort", "sym"});
  EXPECT_TRUE(has(p.out, "hot_function")) << p.out;
  auto s = run({sonde_bin(), "report", "-i", data_, "--sort", "sym"});
  EXPECT_TRUE(has(s.out, "hot_function")) << s.out << s.err;
}

}  // namespace
