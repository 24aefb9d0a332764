// The stream `sonde record` writes, checked against perf 6.1 and sonde's
// own reader on the real kernel.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "format/perf_abi.h"
#include "record/record_test_util.h"
#include "record/recording_reader.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*

namespace {

class RecordStream : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(compile_fixture("hot_loop.c", fixture_)); }
  TempDir dir_;
  std::string fixture_ = dir_ / "hot_loop";
  std::string data_ = dir_ / "rec.data";
};

TEST_F(RecordStream, PerfScriptReadsItWithoutWarningsAndNamesTheHotFunction) {
  auto r = run({sonde_bin(), "record", "-g", "-o", data_, "--", fixture_, "0.4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto facts = read_recording(data_);
  ASSERT_TRUE(facts.opened) << facts.open_error;
  EXPECT_EQ(facts.bad_samples, 0u) << facts.first_bad;
  EXPECT_EQ(facts.truncated_bytes, 0u);
  EXPECT_EQ(facts.reader_error, "");
  ASSERT_GT(facts.samples.size(), 50u);  // 0.4 s at 4000 Hz
  for (const auto& s : facts.samples) EXPECT_GT(s.callchain, 0u);

  // One line per sample with the call chains hidden.
  auto ps = run({"perf", "script", "-i", data_, "-G", "-F", "comm,tid,event"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
  EXPECT_EQ(lines(ps.out).size(), facts.samples.size());

  // perf resolves the hot function through the build-id'd MMAP2.
  auto sym = run({"perf", "script", "-i", data_, "-F", "ip,sym"});
  EXPECT_EQ(sym.exit_code, 0) << sym.err;
  EXPECT_FALSE(has_perf_complaint(sym.err)) << sym.err;
  EXPECT_GT(count_lines_with(sym.out, "hot_function"), facts.samples.size() / 2) << sym.out.substr(0, 2000);
  // The call chains resolve too (hot_function is a leaf: fp unwinding goes
  // from its caller's frame on up to main).
  EXPECT_GT(count_lines_with(sym.out, " main"), facts.samples.size() / 2);

  // The summary line matches the stream.
  EXPECT_NE(r.err.find("sonde record: " + std::to_string(facts.samples.size()) + " samples, 0 lost"),
            std::string::npos)
      << r.err;
}

TEST_F(RecordStream, StdoutPipesIntoPerfScriptAndSondeScript) {
  auto p = sh(quoted(sonde_bin()) + " record -q -o - -- '" + fixture_ + "' 0.3 | perf script -i - -F ip,sym");
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_FALSE(has_perf_complaint(p.err)) << p.err;
  EXPECT_GT(count_lines_with(p.out, "hot_function"), 20u);

  auto s = sh(quoted(sonde_bin()) + " record -q -o - -- '" + fixture_ + "' 0.3 | '" + sonde_bin() + "' script -i -");
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_GT(count_lines_with(s.out, "cpu-clock"), 20u) << s.out.substr(0, 2000) << s.err;
  EXPECT_GT(count_lines_with(s.out, "hot_loop"), 20u) << s.out.substr(0, 2000) << s.err;
}

TEST_F(RecordStream, WritesPerfsOrderAndOnlyKnownRecordTypes) {
  auto r = run({sonde_bin(), "record", "-q", "-e", "cpu-clock,page-faults", "-o", data_, "--", fixture_, "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  ASSERT_GE(f.types.size(), 6u);
  // attrs, then features ending with the end marker, then everything else.
  EXPECT_EQ(f.types[0], sonde::format::kHeaderAttr);
  EXPECT_EQ(f.types[1], sonde::format::kHeaderAttr);
  EXPECT_EQ(f.types[2], sonde::format::kHeaderFeature);
  size_t init = 0, first_sample = 0;
  for (size_t i = 0; i < f.types.size(); ++i) {
    uint32_t t = f.types[i];
    EXPECT_TRUE((t >= 1 && t <= 21) || (t >= 64 && t <= 82)) << "type " << t << " at " << i;
    if (t == sonde::format::kFinishedInit) init = i;
    if (t == sonde::format::kSample && !first_sample) first_sample = i;
    if (i > 2 && t == sonde::format::kHeaderAttr) ADD_FAILURE() << "attr after the features";
  }
  EXPECT_GT(init, 0u);
  EXPECT_GT(first_sample, init);
  EXPECT_EQ(f.types.back(), sonde::format::kFinishedRound);
  // Both events named, one sample_id layout with IDENTIFIER, tracking bits on the first only.
  ASSERT_EQ(f.event_names.size(), 2u);
  EXPECT_EQ(f.event_names[0], "cpu-clock");
  EXPECT_EQ(f.event_names[1], "page-faults");
  ASSERT_EQ(f.sample_types.size(), 2u);
  EXPECT_EQ(f.sample_types[0], f.sample_types[1]);
  EXPECT_TRUE(f.sample_types[0] & PERF_SAMPLE_IDENTIFIER);
  constexpr uint64_t kMmapBit = 1ULL << 8;  // attr flag word: mmap
  EXPECT_TRUE(f.attr_flags[0] & kMmapBit);
  EXPECT_FALSE(f.attr_flags[1] & kMmapBit);
  size_t faults = 0;
  for (const auto& s : f.samples) faults += s.event == "page-faults";
  EXPECT_GT(faults, 0u);
  auto ps = run({"perf", "script", "-i", data_, "-F", "event"});
  EXPECT_EQ(ps.exit_code, 0);
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
  EXPECT_GT(count_lines_with(ps.out, "page-faults"), 0u);
}

TEST_F(RecordStream, UserModifierKeepsOnlyUserSamples) {
  auto r = run({sonde_bin(), "record", "-q", "-e", "cpu-clock:u", "-o", data_, "--", fixture_, "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  ASSERT_GT(f.samples.size(), 100u);
  ASSERT_EQ(f.event_names.size(), 1u);
  EXPECT_EQ(f.event_names[0], "cpu-clock:u");
  for (const auto& s : f.samples) EXPECT_EQ(s.cpumode, sonde::format::kMiscUser);
  auto k = run({sonde_bin(), "record", "-q", "-e", "cpu-clock:k", "-o", data_, "--", fixture_, "0.2"});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  for (const auto& s : read_recording(data_).samples) EXPECT_EQ(s.cpumode, sonde::format::kMiscKernel);
}

void check_build_ids(const std::string& data, const std::string& fixture) {
  auto f = read_recording(data);
  std::string want_vdso = readelf_vdso_build_id();
  ASSERT_EQ(want_vdso.size(), 40u);
  std::string want_fixture = readelf_build_id(fixture);
  std::string want_libc = readelf_build_id("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_FALSE(want_fixture.empty());
  ASSERT_FALSE(want_libc.empty());
  bool saw_fixture = false, saw_libc = false, saw_kernel = false, saw_vdso = false;
  for (const auto& m : f.mmap2) {
    if (m.filename == fixture) {
      saw_fixture = true;
      EXPECT_EQ(m.build_id, want_fixture);
    }
    if (m.filename.ends_with("/libc.so.6")) {
      saw_libc = true;
      EXPECT_EQ(m.build_id, want_libc);
    }
    if (m.filename == "[kernel.kallsyms]_text") {
      saw_kernel = true;
      EXPECT_EQ(m.build_id.size(), 40u);
    }
    // Every file-backed executable mapping carries one, and so does the
    // vdso (read from the process: the kernel gives none); anon none.
    if (!m.filename.empty() && m.filename[0] == '/') {
      EXPECT_FALSE(m.build_id.empty()) << m.filename;
    }
    if (m.filename == "[vdso]") {
      saw_vdso = true;
      EXPECT_EQ(m.build_id, want_vdso);
    }
    if (m.filename.starts_with("//anon")) {
      EXPECT_TRUE(m.build_id.empty());
    }
  }
  EXPECT_TRUE(saw_vdso);
  EXPECT_TRUE(saw_fixture);
  EXPECT_TRUE(saw_libc);
  EXPECT_TRUE(saw_kernel);
}

TEST_F(RecordStream, BuildIdsMatchReadelfInKernelMode) {
  auto r = run({sonde_bin(), "record", "-q", "--buildid-mode=kernel", "-o", data_, "--", fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  ASSERT_FALSE(f.attr_flags.empty());
  EXPECT_TRUE(f.attr_flags[0] & sonde::format::kAttrFlagBuildId);
  check_build_ids(data_, fixture_);
}

TEST_F(RecordStream, BuildIdsMatchReadelfInRecorderMode) {
  auto r = run({sonde_bin(), "record", "-q", "--buildid-mode=recorder", "-o", data_, "--", fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  ASSERT_FALSE(f.attr_flags.empty());
  EXPECT_FALSE(f.attr_flags[0] & sonde::format::kAttrFlagBuildId);
  check_build_ids(data_, fixture_);
  // perf resolves symbols through the recorder's build-ids too.
  auto sym = run({"perf", "script", "-i", data_, "-F", "ip,sym"});
  EXPECT_GT(count_lines_with(sym.out, "hot_function"), 10u);
}

// The kernel (6.18 here) leaks the MMAP2 build-id misc bit from an event
// with attr.build_id to the events written after it for the same mapping,
// whose payload is the inode form. With the kernel's build-ids, sonde
// recorded under perf made perf 6.1 abort ("stack smashing detected" on the
// workload's MMAP2); by default sonde reads build-ids itself and asks the
// kernel for none.
TEST_F(RecordStream, ByDefaultAPerfSessionOfTheSameTasksIsLeftIntact) {
  const std::string perf_data = data_ + ".perf";
  auto r = run({"perf", "record", "-q", "-o", perf_data, "--", sonde_bin(), "record", "-q", "-o", data_, "--",
                fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 400);
  auto mmaps = run({"perf", "script", "-i", perf_data, "--show-mmap-events"});
  ASSERT_EQ(mmaps.exit_code, 0) << mmaps.err;
  size_t fixture_maps = 0;
  for (const auto& l : lines(mmaps.out)) {
    if (l.find("PERF_RECORD_MMAP2") == std::string::npos || l.find(fixture_) == std::string::npos) continue;
    ++fixture_maps;
    EXPECT_EQ(l.find(" <"), std::string::npos) << "an inode-form record read as a build-id one: " << l;
  }
  EXPECT_GT(fixture_maps, 0u) << mmaps.out.substr(0, 2000);
  auto f = read_recording(data_);
  ASSERT_FALSE(f.attr_flags.empty());
  EXPECT_FALSE(f.attr_flags[0] & sonde::format::kAttrFlagBuildId);
  check_build_ids(data_, fixture_);
}

// The other way round: a sonde without the kernel's build-ids records tasks
// that another session records with them (here a sonde in kernel mode under
// it). Its MMAP2s arrive with the leaked bit; it repairs them, and every
// build-id is still readelf's.
TEST_F(RecordStream, ALeakedBuildIdBitIsRepaired) {
  const std::string inner = data_ + ".inner";
  auto r = run({sonde_bin(), "record", "-q", "-o", data_, "--", sonde_bin(), "record", "-q", "--buildid-mode=kernel",
                "-o", inner, "--", fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  check_build_ids(data_, fixture_);
  check_build_ids(inner, fixture_);
  auto ps = run({"perf", "script", "-i", data_, "--show-mmap-events"});
  EXPECT_EQ(ps.exit_code, 0);
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
}

TEST_F(RecordStream, TracepointFieldsDecodeInPerfScript) {
  auto r = run({sonde_bin(), "record", "-q", "-e", "sched:sched_process_exec", "-e", "cpu-clock", "-o", data_, "--",
                fixture_, "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  EXPECT_GT(f.tracing_data_bytes, 1000u);
  size_t tp = 0;
  for (const auto& s : f.samples)
    if (s.event == "sched:sched_process_exec") {
      ++tp;
      EXPECT_GT(s.raw, 8u);
    }
  EXPECT_EQ(tp, 1u);
  auto ps = run({"perf", "script", "-i", data_});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
  EXPECT_EQ(count_lines_with(ps.out, "sched:sched_process_exec: filename=" + fixture_), 1u) << ps.out.substr(0, 3000);
}

TEST_F(RecordStream, SmallBuffersWrapAndEveryRecordStillParses) {
  // One 4 KiB page per CPU at 10 kHz with call chains: records wrap the
  // buffer end constantly, and some are lost (and said to be).
  auto r = run({sonde_bin(), "record", "-m", "1", "-F", "10000", "-g", "-o", data_, "--", fixture_, "0.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto f = read_recording(data_);
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_EQ(f.reader_error, "");
  EXPECT_GT(f.samples.size(), 100u);
  EXPECT_NE(r.err.find(std::to_string(f.lost) + " lost"), std::string::npos) << r.err;
  auto ps = run({"perf", "script", "-i", data_, "-G", "-F", "comm,tid,event"});
  EXPECT_EQ(ps.exit_code, 0);
  EXPECT_EQ(lines(ps.out).size(), f.samples.size());
}

TEST_F(RecordStream, KillNineMidRunLeavesEveryCompleteRecordReadable) {
  pid_t rec = spawn({sonde_bin(), "record", "-g", "-F", "2000", "-o", data_, "--", fixture_, "1.5"});
  // Until over 100 samples are in the file: passes were drained.
  EXPECT_TRUE(wait_until([&] { return read_recording(data_).samples.size() > 100; }));
  ASSERT_EQ(::kill(rec, SIGKILL), 0);
  EXPECT_EQ(wait_for(rec), 128 + SIGKILL);
  auto f = read_recording(data_);
  ASSERT_TRUE(f.opened) << f.open_error;
  EXPECT_EQ(f.reader_error, "");
  EXPECT_EQ(f.bad_samples, 0u) << f.first_bad;
  EXPECT_GT(f.samples.size(), 100u);  // passes are flushed as they go
  auto ps = run({"perf", "script", "-i", data_, "-F", "ip,sym"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_GT(count_lines_with(ps.out, "hot_function"), 50u);

  // A record cut in the middle (a kill during a write): the reader stops
  // cleanly at the tail and counts the bytes it ignored.
  auto size = std::stoull(run({"stat", "-c", "%s", data_}).out);
  sh("truncate -s " + std::to_string(size - 5) + " '" + data_ + "'");
  auto t = read_recording(data_);
  EXPECT_GT(t.truncated_bytes, 0u);
  EXPECT_EQ(t.reader_error, "");
  EXPECT_GE(t.samples.size() + 1, f.samples.size());
  // The (orphaned) workload ends by itself within 1.5 s.
}

TEST_F(RecordStream, KillNineAtAnyMomentLeavesAValidPrefix) {
  // Early kills land in the preamble (attrs, features, synthesis), later
  // ones between drain passes: the file is always a valid prefix. Each
  // moment is an event seen in the file, not a delay.
  auto size_of = [](const std::string& p) { return file_exists(p) ? std::stoull(run({"stat", "-c", "%s", p}).out) : 0; };
  const std::vector<std::pair<const char*, std::function<bool(const std::string&)>>> moments = {
      {"exec", [](const std::string&) { return true; }},
      {"created", [](const std::string& p) { return file_exists(p); }},
      {"written", [&](const std::string& p) { return size_of(p) > 0; }},
      {"synthesis", [&](const std::string& p) { return size_of(p) > 64 * 1024; }},
      {"samples", [](const std::string& p) { return !read_recording(p).samples.empty(); }},
      {"passes", [](const std::string& p) { return read_recording(p).samples.size() > 1000; }},
  };
  for (const auto& [moment, reached_fn] : moments) {
    const auto& reached = reached_fn;  // a lambda cannot capture a structured binding in clang 14
    std::string data = dir_ / fmt::format("k-{}.data", moment);
    pid_t rec = spawn({sonde_bin(), "record", "-a", "-g", "-o", data, "--", "sleep", "2"});
    int status = 0;
    bool ended = false;  // the recording ended first: the prefix is all of it
    wait_until([&] { return reached(data) || (ended = ::waitpid(rec, &status, WNOHANG) == rec); });
    if (!ended) {
      ::kill(rec, SIGKILL);
      wait_for(rec);
    }
    if (!file_exists(data) || std::stoull(run({"stat", "-c", "%s", data}).out) == 0) continue;  // killed before writing
    auto f = read_recording(data);
    EXPECT_TRUE(f.opened) << moment << ": " << f.open_error;
    EXPECT_EQ(f.reader_error, "") << moment;
    EXPECT_EQ(f.bad_samples, 0u) << moment << ": " << f.first_bad;
    auto ps = run({"perf", "script", "-i", data, "-G", "-F", "comm,tid,event"});
    EXPECT_EQ(ps.exit_code, 0) << moment << ": " << ps.err;
    EXPECT_EQ(lines(ps.out).size(), f.samples.size()) << moment;
  }
  // The orphaned `sleep 2` workloads end by themselves.
}

TEST_F(RecordStream, WorkloadStdoutCannotCorruptAStreamOnStdout) {
  auto p = sh(quoted(sonde_bin()) + " record -q -o - -- sh -c 'echo workload-says-hello; " + fixture_ +
              " 0.1' | perf script -i - -F comm");
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_FALSE(has_perf_complaint(p.err)) << p.err;
  EXPECT_GT(count_lines_with(p.out, "hot_loop"), 50u);
  EXPECT_NE(p.err.find("workload-says-hello"), std::string::npos);  // sent to stderr instead
}

}  // namespace
