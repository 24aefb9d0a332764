// `sonde record --threads -o DIR`: parallel drain threads, one pipe-mode
// stream per thread (DIR/data.N) beside DIR/data (synthesized records).
// Each stream alone is read by perf and sonde; together they hold what one
// stream would; a kill -9 leaves every stream readable; bad input is one
// line, exit 2, and nothing created.
#include <gtest/gtest.h>

#include <filesystem>
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;

namespace {

std::vector<std::string> streams_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "data" || name.rfind("data.", 0) == 0) out.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Ends, by pid, every process whose executable is `path` (a test's own
// fixture in its temporary directory).
void kill_processes_running(const std::string& path) {
  DIR* d = ::opendir("/proc");
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    char exe[4096];
    ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
    if (n > 0 && std::string(exe, static_cast<size_t>(n)) == path) ::kill(pid, SIGKILL);
  }
  ::closedir(d);
}

class RecordThreadsDir : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("two_threads.c", fixture_, "-O1 -pthread")); }
  TempDir dir_;
  std::string fixture_ = dir_ / "two_threads";
  std::string out_ = dir_ / "rec";
};

TEST_F(RecordThreadsDir, StreamsTogetherCountWhatOneStreamCountsAndEachIsReadAlone) {
  auto one = run({sonde_bin(), "record", "-q", "-F", "1000", "-o", dir_ / "one.data", "--", fixture_, "0.5"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto r = run({sonde_bin(), "record", "--threads=cpu", "-F", "1000", "-o", out_, "--", fixture_, "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto files = streams_in(out_);
  // data and one data.N per online CPU.
  ASSERT_EQ(files.size(), 1 + std::thread::hardware_concurrency()) << r.err;
  EXPECT_NE(r.err.find(" (" + std::to_string(files.size()) + " streams) "), std::string::npos) << r.err;

  size_t samples = 0;
  std::set<uint32_t> comm_pids;
  std::vector<SampleFact> all;
  bool fixture_mapped = false;
  for (const auto& f : files) {
    auto facts = read_recording(f);
    ASSERT_TRUE(facts.opened) << f << ": " << facts.open_error;
    EXPECT_EQ(facts.reader_error, "") << f;
    EXPECT_EQ(facts.bad_samples, 0u) << f;
    samples += facts.samples.size();
    all.insert(all.end(), facts.samples.begin(), facts.samples.end());
    comm_pids.insert(facts.comm_pids.begin(), facts.comm_pids.end());
    for (const auto& m : facts.mmap2)
      if (m.filename == fixture_ && (m.prot & 4) && !m.build_id.empty()) fixture_mapped = true;
    // Each stream is a whole pipe-mode stream perf reads on its own.
    auto script = run({"perf", "script", "-i", f});
    EXPECT_EQ(script.exit_code, 0) << f << ": " << script.err;
    EXPECT_FALSE(has_perf_complaint(script.err)) << f << ": " << script.err.substr(0, 400);
    auto ours = run({sonde_bin(), "script", "-i", f});
    EXPECT_EQ(ours.exit_code, 0) << f << ": " << ours.err;
  }
  // 1 s of CPU at 1000 Hz in each: the same within sampling noise.
  auto single = read_recording(dir_ / "one.data");
  ASSERT_GT(single.samples.size(), 700u);
  EXPECT_NEAR(static_cast<double>(samples), static_cast<double>(single.samples.size()),
              0.15 * static_cast<double>(single.samples.size()));
  // Side-band: every sample's process has its COMM somewhere in the
  // directory, and the workload's executable mapping has its build-id.
  for (const auto& s : all) ASSERT_TRUE(comm_pids.count(s.pid)) << s.pid;
  EXPECT_TRUE(fixture_mapped);
}

// The directory as every reader takes it (analysis/directory_reader.h):
// one recording whose merged samples are all the streams' samples, in time
// order, each named by its thread's command.
TEST_F(RecordThreadsDir, EveryReaderTakesTheDirectoryAsOneRecording) {
  auto r = run({sonde_bin(), "record", "-q", "--threads=cpu", "-F", "1000", "-o", out_, "--", fixture_, "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t per_stream = 0;
  for (const auto& f : streams_in(out_)) per_stream += read_recording(f).samples.size();
  auto script = run({sonde_bin(), "script", "-i", out_, "-F", "comm,tid,time"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  size_t merged = 0, unnamed = 0, backwards = 0;
  double last = 0;
  for (const auto& l : lines(script.out)) {
    std::istringstream in(l);
    std::string comm, tid, time;
    if (!(in >> comm >> tid >> time)) continue;
    ++merged;
    unnamed += comm == ":" + tid || comm.empty();
    double t = std::stod(time);
    backwards += t < last;
    last = t;
  }
  EXPECT_EQ(merged, per_stream);
  EXPECT_GT(merged, 700u);
  EXPECT_EQ(unnamed, 0u);
  EXPECT_EQ(backwards, 0u);
  auto report = run({sonde_bin(), "report", "--stdio", "-q", "--no-children", "--sort", "sym", "-i", out_});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("spin_a"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("spin_b"), std::string::npos) << report.out;
}

TEST_F(RecordThreadsDir, KillNineLeavesEveryStreamReadable) {
  std::string err = dir_ / "err.txt";
  pid_t rec = spawn({sonde_bin(), "record", "--threads=cpu", "-F", "1000", "-o", out_, "--", fixture_, "30"}, "/dev/null",
                    err);
  // Until every kernel stream has records past its preamble.
  wait_until([&] {
    auto files = streams_in(out_);
    size_t grown = 0;
    for (const auto& f : files) {
      auto facts = read_recording(f);
      if (f.find("data.") != std::string::npos && !facts.samples.empty()) ++grown;
    }
    return files.size() > 1 && grown == files.size() - 1;
  });
  ::kill(rec, SIGKILL);
  EXPECT_EQ(wait_for(rec), 128 + SIGKILL);
  kill_processes_running(fixture_);  // the orphaned workload
  auto files = streams_in(out_);
  ASSERT_EQ(files.size(), 1 + std::thread::hardware_concurrency());
  for (const auto& f : files) {
    auto facts = read_recording(f);
    ASSERT_TRUE(facts.opened) << f << ": " << facts.open_error;
    EXPECT_EQ(facts.bad_samples, 0u) << f;
    if (f.find("data.") != std::string::npos) {
      EXPECT_GT(facts.samples.size(), 0u) << f;
    }
    auto script = run({"perf", "script", "-i", f});
    EXPECT_EQ(script.exit_code, 0) << f << ": " << script.err;
  }
}

// perf's ordering rule, checked on the raw stream: every sample after
// FINISHED_ROUND N is no older than every sample before FINISHED_ROUND N-1.
// Returns the number of violations.
size_t round_violations(const RecordingFacts& f, size_t& rounds) {
  uint64_t max_before_previous = 0, max_before_last = 0, max_so_far = 0;
  size_t bad = 0, sample = 0;
  rounds = 0;
  for (uint32_t type : f.types) {
    if (type == 68) {  // FINISHED_ROUND
      ++rounds;
      max_before_previous = max_before_last;
      max_before_last = max_so_far;
    } else if (type == 9 && sample < f.samples.size()) {
      uint64_t t = f.samples[sample++].time;
      if (t < max_before_previous) ++bad;
      max_so_far = std::max(max_so_far, t);
    }
  }
  return bad;
}

TEST_F(RecordThreadsDir, ThreadsIntoAPipeMakeOneStreamWhoseRoundsOrderIt) {
  auto one = run({sonde_bin(), "record", "-q", "-F", "4000", "-o", dir_ / "one.data", "--", fixture_, "0.5"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::string merged = dir_ / "merged.data";
  auto r = sh(quoted(sonde_bin()) + " record --threads=cpu -F 4000 -o - -- '" + fixture_ + "' 0.5 2>'" +
              (dir_ / "err") + "' | tee '" + merged + "' | '" + sonde_bin() + "' script -i - -F time --ns");
  ASSERT_EQ(r.exit_code, 0) << r.err << slurp(dir_ / "err");
  EXPECT_NE(slurp(dir_ / "err").find("to stdout (one stream from " +
                                     std::to_string(1 + std::thread::hardware_concurrency()) + " drain threads)"),
            std::string::npos)
      << slurp(dir_ / "err");
  // sonde script's times, read live from the pipe: never decreasing.
  double last = 0;
  size_t printed = 0;
  for (const auto& line : lines(r.out)) {
    if (line.empty()) continue;
    double t = std::stod(line);
    EXPECT_GE(t, last) << line;
    last = t;
    ++printed;
  }
  auto f = read_recording(merged);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(printed, f.samples.size());
  size_t rounds = 0;
  EXPECT_EQ(round_violations(f, rounds), 0u);
  EXPECT_GT(rounds, 3u);
  auto single = read_recording(dir_ / "one.data");
  ASSERT_GT(single.samples.size(), 2800u);
  EXPECT_NEAR(static_cast<double>(f.samples.size()), static_cast<double>(single.samples.size()),
              0.15 * static_cast<double>(single.samples.size()));
  auto script = run({"perf", "script", "-i", merged});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  EXPECT_FALSE(has_perf_complaint(script.err)) << script.err.substr(0, 400);  // "out of order" included
  auto report = sh(quoted(sonde_bin()) + " report -i - < '" + merged + "'");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("] spin_a"), std::string::npos) << report.out.substr(0, 800);
  EXPECT_NE(report.out.find("] spin_b"), std::string::npos) << report.out.substr(0, 800);
}

// One line, exit 2, nothing created.
void expect_usage_error(const std::vector<std::string>& argv, const std::string& message, const std::string& path) {
  auto r = run(argv);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "sonde: " + message + "\n");
  EXPECT_FALSE(file_exists(path)) << path;
}

TEST_F(RecordThreadsDir, BadSpecsAreOneLineExitTwoAndNothingCreated) {
  auto rec = [&](const std::string& spec) {
    return std::vector<std::string>{sonde_bin(), "record", "-a", spec, "-o", out_, "--", "true"};
  };
  expect_usage_error(rec("--threads=foo"),
                     "invalid --threads 'foo': expected cpu, core, package, numa, a number of threads, or CPU masks "
                     "such as 0-1/0:2-3/2",
                     out_);
  expect_usage_error(rec("--threads=0:"), "invalid --threads '0:': empty CPU mask", out_);
  expect_usage_error(rec("--threads=/0"), "invalid --threads '/0': empty CPU mask", out_);
  expect_usage_error(rec("--threads=0,4000"), "CPU 4000 in '0,4000' is not online (online: 0-" +
                                                   std::to_string(std::thread::hardware_concurrency() - 1) + ")",
                     out_);
  expect_usage_error(rec("--threads=0:0"), "invalid --threads '0:0': CPU 0 is in two masks", out_);
  expect_usage_error(rec("--threads=0"), "invalid --threads '0': the number of threads must be 1 to 4096", out_);
  expect_usage_error({sonde_bin(), "record", "-C", "0", "--threads=1-1", "-o", out_, "--", "true"},
                     "invalid --threads '1-1': mask '1-1' has none of the recorded CPUs", out_);
}

TEST_F(RecordThreadsDir, AnOutputThatCannotBeADirectoryIsRefused) {
  std::string file = dir_ / "plain";
  ASSERT_EQ(sh("echo keep > '" + file + "'").exit_code, 0);
  // A file where the directory goes is kept as FILE.old, as perf's backup.
  auto r = run({sonde_bin(), "record", "-q", "--threads", "-o", file, "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(file + ".old"), "keep\n");
  EXPECT_TRUE(std::filesystem::is_directory(file));
  std::filesystem::remove_all(file);
  ASSERT_EQ(sh("echo keep > '" + file + "'").exit_code, 0);
  expect_usage_error({sonde_bin(), "record", "--threads", "-a", "-o", file + "/rec", "--", "true"},
                     "--threads writes a directory: '" + file + "/rec' cannot be one ('" + file +
                         "/' is not a directory)",
                     file + "/rec");
  expect_usage_error({sonde_bin(), "record", "--threads", "--switch-output", "-a", "-o", out_, "--", "true"},
                     "--threads cannot be used with --switch-output", out_);
}

TEST_F(RecordThreadsDir, TooFewFileDescriptorsIsOneLineBeforeAnyOutput) {
  // The hard limit too: the recorder raises the soft limit to it first.
  auto r = run({"prlimit", "--nofile=30:30", sonde_bin(), "record", "--threads", "-a", "-o", out_, "--", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  static const std::regex line(
      "sonde: the recording needs about [0-9]+ file descriptors but RLIMIT_NOFILE is 30 \\(raise the hard limit: "
      "ulimit -Hn\\)\n");
  EXPECT_TRUE(std::regex_match(r.err, line)) << r.err;
  EXPECT_FALSE(file_exists(out_));
  // A soft limit below the hard one is raised: the same recording works.
  auto raised = run({"prlimit", "--nofile=30:4096", sonde_bin(), "record", "-q", "--threads", "-a", "-o", out_, "--",
                     "true"});
  EXPECT_EQ(raised.exit_code, 0) << raised.err;
  EXPECT_TRUE(file_exists(out_ + "/data.0"));
}

TEST_F(RecordThreadsDir, AnEarlierRecordingsStreamsAreReplacedAndOtherFilesKept) {
  ASSERT_EQ(sh("mkdir '" + out_ + "' && touch '" + out_ + "/data.7' '" + out_ + "/notes'").exit_code, 0);
  auto r = run({sonde_bin(), "record", "-q", "--threads=1", "-o", out_, "--", fixture_, "0.05"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(streams_in(out_), (std::vector<std::string>{out_ + "/data", out_ + "/data.0"}));
  EXPECT_TRUE(file_exists(out_ + "/notes"));
}

}  // namespace
