// sonde record --switch-output: every file a complete recording that perf
// reads alone, and the files together hold every record once. The fixture
// forks a known set of children in steps the test starts, so each file's
// sched:sched_process_fork samples are known exactly.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls until `path` has `n` lines containing `needle`. The bound only ends
// a hung recorder; no duration is checked.
bool wait_for_lines(const std::string& path, const std::string& needle, size_t n) {
  return wait_until([&] { return count_lines_with(read_text(path), needle) >= n; });
}

uint64_t file_size(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The child pids of the fork samples perf script reads from one file, and
// whether every sample is named after the fixture (its COMM is in the file).
struct ForkSamples {
  std::vector<int> children;
  size_t named = 0;
  std::string err;
  int exit_code = -1;
};

ForkSamples perf_fork_samples(const std::string& file) {
  auto r = run({"perf", "script", "-i", file, "-F", "comm,tid,event,trace"});
  ForkSamples s;
  s.exit_code = r.exit_code;
  s.err = r.err;
  static const std::regex child("child_pid=([0-9]+)");
  for (const auto& line : lines(r.out)) {
    std::smatch m;
    if (!std::regex_search(line, m, child)) continue;
    s.children.push_back(std::stoi(m[1]));
    if (line.find("fork_steps") < line.find("sched:")) ++s.named;
  }
  std::sort(s.children.begin(), s.children.end());
  return s;
}

class RecordSwitch : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("fork_steps.c", fixture_)); }

  // Even when an assertion failed half-way: the fixture (which would wait
  // for its next step forever) and the recorder end, both by their pid.
  void TearDown() override {
    if (workload_ > 0 && !done_) ::kill(workload_, SIGKILL);
    if (recorder_ > 0 && !done_) {
      ::kill(recorder_, SIGTERM);
      wait_for(recorder_);
    }
  }

  // sonde record ARGS -e sched:sched_process_fork -o OUT -- fork_steps STEPS CHILDREN
  void start(const std::vector<std::string>& args, int steps, int children) {
    std::vector<std::string> argv = {sonde_bin(), "record"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-e", "sched:sched_process_fork", "-o", out_, "--", fixture_, std::to_string(steps),
                             std::to_string(children)});
    recorder_ = spawn(argv, stdout_, stderr_);
    ASSERT_TRUE(wait_for_lines(stdout_, "pid ", 1)) << read_text(stderr_);
    workload_ = std::stoi(lines(read_text(stdout_)).front().substr(4));
  }

  // One step: the fixture forks its children; returns once they are reaped
  // (their fork samples are in the ring buffers by then).
  void step(int n) {
    ASSERT_EQ(::kill(workload_, SIGUSR1), 0);
    ASSERT_TRUE(wait_for_lines(stdout_, "step " + std::to_string(n) + " done", 1)) << read_text(stderr_);
  }

  // SIGUSR2, then the recorder's line for the nth file it finished.
  void switch_by_signal(size_t nth) {
    ASSERT_EQ(::kill(recorder_, SIGUSR2), 0);
    ASSERT_TRUE(wait_for_lines(stderr_, "sonde record: wrote ", nth)) << read_text(stderr_);
  }

  int finish() {
    int status = wait_for(recorder_);
    done_ = true;
    return status;
  }

  // The children the fixture forked, per step (index 0 = step 1).
  std::vector<std::vector<int>> children_by_step() const {
    std::vector<std::vector<int>> steps(1);
    for (const auto& line : lines(read_text(stdout_))) {
      if (line.starts_with("child ")) steps.back().push_back(std::stoi(line.substr(6)));
      if (line.starts_with("step ")) steps.emplace_back();
    }
    steps.pop_back();
    for (auto& s : steps) std::sort(s.begin(), s.end());
    return steps;
  }

  // OUT.* in name order, which is time order (perf's timestamps).
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir_.path().c_str());
    while (dirent* e = d ? ::readdir(d) : nullptr) {
      std::string name = e->d_name;
      if (name.starts_with("rec.data.")) out.push_back(dir_ / name);
    }
    if (d) ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }

  // Bytes in every file of the recording so far (finished ones and OUTPUT).
  uint64_t bytes_written() const {
    uint64_t n = file_size(out_);
    for (const auto& f : files()) n += file_size(f);
    return n;
  }

  // Each file on its own: perf reads it without a complaint, and sonde's
  // reader finds whole records, the fixture's build-id'd MMAP2 and the
  // kernel's map (the start-up state a switched file repeats).
  void expect_complete_recording(const std::string& file, size_t samples) {
    ForkSamples s = perf_fork_samples(file);
    EXPECT_EQ(s.exit_code, 0) << file << ": " << s.err;
    EXPECT_FALSE(has_perf_complaint(s.err)) << file << ": " << s.err;
    EXPECT_EQ(s.named, s.children.size()) << file << ": a sample without its process's COMM";
    auto f = read_recording(file);
    ASSERT_TRUE(f.opened) << file << ": " << f.open_error;
    EXPECT_EQ(f.truncated_bytes, 0u) << file;
    EXPECT_EQ(f.bad_samples, 0u) << file << ": " << f.first_bad;
    EXPECT_EQ(f.reader_error, "") << file;
    EXPECT_EQ(f.samples.size(), samples) << file;
    EXPECT_GT(f.tracing_data_bytes, 0u) << file;
    bool fixture_map = false, kernel_map = false;
    for (const auto& m : f.mmap2) {
      fixture_map |= m.filename == fixture_ && m.build_id == readelf_build_id(fixture_);
      kernel_map |= m.filename == "[kernel.kallsyms]_text" && !m.build_id.empty();
    }
    // A file started after the fixture exited (the last, by size) has none
    // of its samples, and no map of it to give.
    if (samples > 0) {
      EXPECT_TRUE(fixture_map) << file;
    }
    EXPECT_TRUE(kernel_map) << file;
  }

  TempDir dir_;
  std::string fixture_ = dir_ / "fork_steps";
  std::string out_ = dir_ / "rec.data";
  std::string stdout_ = dir_ / "fixture.out";
  std::string stderr_ = dir_ / "record.err";
  pid_t recorder_ = -1, workload_ = -1;
  bool done_ = false;
};

class RecordSwitchBySignal : public RecordSwitch, public ::testing::WithParamInterface<bool> {};

// A switch between two steps: each file holds exactly its step's forks, so
// no record is lost or written twice at a boundary; with -z each file is a
// zstd stream of its own.
TEST_P(RecordSwitchBySignal, EachFileHoldsExactlyTheForksOfItsStep) {
  const bool compress = GetParam();
  constexpr int kSteps = 4, kChildren = 25;
  std::vector<std::string> args = {"--switch-output"};
  if (compress) args.push_back("-z");
  start(args, kSteps, kChildren);
  for (int s = 1; s <= kSteps; ++s) {
    step(s);
    if (s < kSteps) switch_by_signal(static_cast<size_t>(s));
  }
  ASSERT_EQ(finish(), 0) << read_text(stderr_);

  auto steps = children_by_step();
  auto names = files();
  ASSERT_EQ(steps.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(names.size(), static_cast<size_t>(kSteps)) << read_text(stderr_);
  EXPECT_FALSE(file_exists(out_)) << "the last file keeps OUTPUT's name";
  const std::regex perf_name(".*/rec\\.data\\.[0-9]{16}");
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_TRUE(std::regex_match(names[i], perf_name)) << names[i];
    EXPECT_EQ(perf_fork_samples(names[i]).children, steps[i]) << names[i];
    expect_complete_recording(names[i], kChildren);
  }
  std::string err = read_text(stderr_);
  EXPECT_EQ(count_lines_with(err, "sonde record: wrote "), static_cast<size_t>(kSteps)) << err;
  EXPECT_NE(err.find("sonde record: " + std::to_string(kSteps * kChildren) + " samples, 0 lost"), std::string::npos)
      << err;
  EXPECT_NE(err.find("written to 4 files " + out_ + ".<timestamp>"), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(PlainAndZstd, RecordSwitchBySignal, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Zstd" : "Plain"; });

// Switches at a size, wherever the drain passes fall: every finished file
// reached the size, and together the files hold every fork exactly once.
TEST_F(RecordSwitch, BySizeEveryForkIsInExactlyOneFile) {
  constexpr int kSteps = 6, kChildren = 100;
  constexpr uint64_t kSize = 16 * 1024;  // ~270 bytes per child: several switches' worth
  start({"--switch-output=16K"}, kSteps, kChildren);
  // The size is looked at where a drain pass ends. A quiet machine runs
  // all six steps within one pass, so each step waits until its children's
  // fork samples (over 100 bytes each) are written: a pass ended between
  // steps; the passes still fall wherever the scheduler puts them.
  for (int s = 1; s <= kSteps; ++s) {
    const uint64_t before = bytes_written();
    step(s);
    ASSERT_TRUE(wait_until([&] { return bytes_written() >= before + kChildren * 100; })) << read_text(stderr_);
  }
  ASSERT_EQ(finish(), 0) << read_text(stderr_);

  auto names = files();
  ASSERT_GE(names.size(), 2u) << read_text(stderr_);
  std::vector<int> all, expected;
  for (auto& s : children_by_step()) expected.insert(expected.end(), s.begin(), s.end());
  std::sort(expected.begin(), expected.end());
  ASSERT_EQ(expected.size(), static_cast<size_t>(kSteps * kChildren));
  for (size_t i = 0; i < names.size(); ++i) {
    if (i + 1 < names.size()) {
      EXPECT_GE(file_size(names[i]), kSize) << names[i];
    }
    auto s = perf_fork_samples(names[i]);
    expect_complete_recording(names[i], s.children.size());
    all.insert(all.end(), s.children.begin(), s.children.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, expected);  // none missing, none twice
}

// Switches by time between two steps (the test waits for the switch, it
// does not time it): the forks of both steps, each in one file.
TEST_F(RecordSwitch, ByTimeEveryForkIsInExactlyOneFile) {
  start({"--switch-output=1s"}, 2, 10);
  step(1);
  ASSERT_TRUE(wait_for_lines(stderr_, "sonde record: wrote ", 1)) << read_text(stderr_);
  step(2);
  ASSERT_EQ(finish(), 0) << read_text(stderr_);
  auto steps = children_by_step();
  std::vector<int> all, expected = steps.at(0);
  expected.insert(expected.end(), steps.at(1).begin(), steps.at(1).end());
  std::sort(expected.begin(), expected.end());
  auto names = files();
  ASSERT_GE(names.size(), 2u);
  for (const auto& f : names) {
    auto s = perf_fork_samples(f);
    EXPECT_EQ(s.exit_code, 0) << f << ": " << s.err;
    all.insert(all.end(), s.children.begin(), s.children.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, expected);
}

// The flight recorder: only the newest N files stay, and they are the last
// steps' (the older ones were removed as new ones were finished).
TEST_F(RecordSwitch, MaxFilesKeepsTheNewestN) {
  constexpr int kSteps = 4, kChildren = 10;
  start({"--switch-output", "--switch-max-files", "2"}, kSteps, kChildren);
  for (int s = 1; s <= kSteps; ++s) {
    step(s);
    if (s < kSteps) switch_by_signal(static_cast<size_t>(s));
  }
  ASSERT_EQ(finish(), 0) << read_text(stderr_);
  auto steps = children_by_step();
  auto names = files();
  ASSERT_EQ(names.size(), 2u) << read_text(stderr_);
  EXPECT_EQ(perf_fork_samples(names[0]).children, steps.at(2));
  EXPECT_EQ(perf_fork_samples(names[1]).children, steps.at(3));
  for (const auto& f : names) expect_complete_recording(f, kChildren);
}

TEST(RecordSwitchUsage, PipeOutputCannotSwitch) {
  for (std::string mode : {"--switch-output", "--switch-output=1M"}) {
    auto r = run({sonde_bin(), "record", mode, "-o", "-", "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << mode;
    EXPECT_EQ(r.err, "sonde: --switch-output cannot be used with -o - (a pipe has no files to switch)\n");
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
