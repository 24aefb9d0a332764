// Recording SDT probes through probe::SdtExtension with the test harness
// (the recorder's part is simulated: fork, prepare, drain, rewrite, stop).
#include <fcntl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "format/uapi/perf_event.h"
#include "kernel/perf_event.h"
#include "probe/probe_cache.h"
#include "probe/sdt_attach_route.h"
#include "probe/sdt_bpf.h"
#include "probe/sdt_perf_event_attach.h"
#include "probe/sdt_note.h"
#include "probe/sdt_harness.h"
#include "support/test_support.h"
#include "util/error.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*
using sonde::probe::SdtExtension;

namespace {

const char* kRegsArgs = " arg1=-5 arg2=250 arg3=-1234 arg4=65000 arg5=-100000 arg6=4000000000 arg7=-5000000000 "
                        "arg8=18000000000000000000";

std::string uprobe_events() {
  std::ifstream f("/sys/kernel/tracing/uprobe_events");
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

class SdtRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(compile_fixture("sdt_forms.c", dir_ / "forms", "-O2"));
    opts_.cache_root = dir_ / "cache";
  }
  TempDir dir_;
  SdtRunOptions opts_;
};

// The tests that attach, once per attach route (SONDE_SDT_ATTACH): the
// uprobe_multi links and the per-site uprobe perf events of kernels before
// 6.6, forced here on a kernel that has both.
class SdtRecordRoute : public SdtRecord, public ::testing::WithParamInterface<const char*> {
 protected:
  bool per_site() const { return std::string(GetParam()) == "perf-event"; }
  // Link fds the extension holds for `sites` sites of one object file.
  size_t links_for(size_t sites) const { return per_site() ? sites : 1; }
  sonde::probe::SdtAttachRoute expected_route() const {
    return per_site() ? sonde::probe::SdtAttachRoute::PerfEvent : sonde::probe::SdtAttachRoute::Multi;
  }
  ScopedSdtAttachRoute route_{GetParam()};
};

INSTANTIATE_TEST_SUITE_P(Routes, SdtRecordRoute, ::testing::ValuesIn(kSdtRoutes),
                         [](const auto& info) { return sdt_route_test_name(info.param); });

}  // namespace

TEST_P(SdtRecordRoute, EveryArgumentFormExactValuesAndCounts) {
  auto run = sdt_record({"%sfix:*"}, {dir_ / "forms", "7"}, opts_);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.route, expected_route());
  EXPECT_EQ(run.sites, 9u);
  EXPECT_EQ(run.links, links_for(9));
  auto c = run.counts();
  EXPECT_EQ(c[std::string("%sfix:regs") + kRegsArgs], 7u);
  EXPECT_EQ(c[std::string("%sfix:stack") + kRegsArgs], 7u);
  EXPECT_EQ(c["%sfix:consts arg1=-7 arg2=200 arg3=-300 arg4=3000000000 arg5=-9 arg6=77"], 7u);
  EXPECT_EQ(c["%sfix:globals arg1=-42 arg2=1234605616436508552 arg3=-2"], 7u);
  EXPECT_EQ(c["%sfix:subregs arg1=-2 arg2=129 arg3=-2 arg4=4294967280 arg5=-1 arg6=9029"], 7u);
  EXPECT_EQ(c["%sfix:memory arg1=-20 arg2=30 arg3=30 arg4=10"], 7u);
  EXPECT_EQ(c["%sfix:riprel arg1=-42 arg2=1234605616436508552 arg3=-2 arg4=-2 arg5=-17 arg6=16"], 7u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(c["%sfix:plain arg1=" + std::to_string(i)], 1u) << i;
    EXPECT_EQ(c["%sfix:guarded arg1=" + std::to_string(i)], 1u) << i;
  }
  EXPECT_EQ(run.hits.size(), 9u * 7u);
  // The semaphore was raised by the kernel: the guarded body ran every time.
  EXPECT_NE(run.out.find("guarded_hits=7"), std::string::npos) << run.out;
  EXPECT_EQ(count_bpf_link_fds(), 0u);
}

TEST_P(SdtRecordRoute, SemaphoreStaysDownWithoutTracing) {
  auto r = run({dir_ / "forms", "3"});
  EXPECT_NE(r.out.find("guarded_hits=0"), std::string::npos);
  // Recording another probe leaves the guarded one's semaphore alone.
  auto run = sdt_record({"%sfix:plain"}, {dir_ / "forms", "3"}, opts_);
  EXPECT_EQ(run.count("%sfix:plain"), 3u);
  EXPECT_EQ(run.hits.size(), 3u);
  EXPECT_NE(run.out.find("guarded_hits=0"), std::string::npos) << run.out;
}

TEST_F(SdtRecord, WildcardsSelectExactlyTheMatchingProbes) {
  auto run = sdt_record({"%sfix:r*", "%s?ix:glob*"}, {dir_ / "forms", "2"}, opts_);
  EXPECT_EQ(run.sites, 3u);
  EXPECT_EQ(run.count("%sfix:regs"), 2u);
  EXPECT_EQ(run.count("%sfix:riprel"), 2u);
  EXPECT_EQ(run.count("%sfix:globals"), 2u);
  EXPECT_EQ(run.hits.size(), 6u);
}

TEST_F(SdtRecord, UnknownProbeIsAUsageErrorAndNothingStaysAttached) {
  try {
    sdt_record({"%sfix:plain", "%sfix:nosuch"}, {dir_ / "forms", "1"}, opts_);
    FAIL() << "no error";
  } catch (const sonde::Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("no probe matches '%sfix:nosuch'"), std::string::npos) << e.what();
  }
  try {
    sdt_record({"%nosuchprov:*"}, {dir_ / "forms", "1"}, opts_);
    FAIL() << "no error";
  } catch (const sonde::Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
  }
  try {
    sdt_record({"%sfix:plain@/etc/passwd"}, {dir_ / "forms", "1"}, opts_);
    FAIL() << "no error";
  } catch (const sonde::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an ELF file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count_bpf_link_fds(), 0u);
  EXPECT_EQ(uprobe_events().find("sfix"), std::string::npos);
}

TEST_F(SdtRecord, AmbiguousNameListsCandidatesAndAtPathResolves) {
  ASSERT_TRUE(compile_fixture("sdt_forms.c", dir_ / "forms2", "-O2 -DVARIANT=2"));
  sonde::probe::ProbeCache cache(opts_.cache_root);
  cache.add(dir_ / "forms");
  cache.add(dir_ / "forms2");
  try {
    sdt_record({"%sfix:plain"}, {"/bin/true"}, opts_);
    FAIL() << "no error";
  } catch (const sonde::Error& e) {
    std::string w = e.what();
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(w.find("ambiguous"), std::string::npos) << w;
    EXPECT_NE(w.find("%sfix:plain@" + dir_ / "forms,"), std::string::npos) << w;
    EXPECT_NE(w.find("%sfix:plain@" + dir_ / "forms2"), std::string::npos) << w;
  }
  // The workload maps one of them: no ambiguity.
  auto run = sdt_record({"%sfix:plain"}, {dir_ / "forms2", "2"}, opts_);
  EXPECT_EQ(run.count("%sfix:plain"), 2u);
  // @PATH pins a binary the workload does not even map... and one it runs.
  run = sdt_record({"%sfix:plain@" + dir_ / "forms"}, {dir_ / "forms", "4"}, opts_);
  EXPECT_EQ(run.count("%sfix:plain"), 4u);
  EXPECT_EQ(run.hits.size(), 4u);
}

TEST_P(SdtRecordRoute, ProbesInADlopenedLibrary) {
  ASSERT_TRUE(compile_fixture("sdt_dlopen_lib.c", dir_ / "libsdl.so", "-shared -fPIC"));
  ASSERT_TRUE(compile_fixture("sdt_dlopen_main.c", dir_ / "main", "-ldl"));
  auto during = [&](SdtExtension& ext, pid_t pid, int in, int out) {
    // Wait for "loaded", tell the extension about the new mapping as the
    // recorder does on MMAP2, then let the workload fire.
    char buf[64] = {};
    ASSERT_GT(read(out, buf, sizeof buf - 1), 0);
    ext.on_exec_mapping(pid, dir_ / "libsdl.so", {});
    ASSERT_EQ(write(in, "go\n", 3), 3);
  };
  // 1. A library in the probe cache is attached up front (by inode), before it is mapped.
  {
    sonde::probe::ProbeCache cache(opts_.cache_root);
    cache.add(dir_ / "libsdl.so");
    SdtRunOptions o = opts_;
    o.during = [&](SdtExtension&, pid_t, int in, int out) {
      char buf[64] = {};
      ASSERT_GT(read(out, buf, sizeof buf - 1), 0);
      ASSERT_EQ(write(in, "go\n", 3), 3);
    };
    auto run = sdt_record({"%sdlib:hit"}, {dir_ / "main", dir_ / "libsdl.so", "5"}, o);
    EXPECT_EQ(run.route, expected_route());
    EXPECT_EQ(run.count("%sdlib:hit"), 5u);
    auto c = run.counts();
    EXPECT_EQ(c["%sdlib:hit arg1=4 arg2=-4"], 1u);
  }
  // 2. A name the main program defines: the library's sites are attached when it is mapped.
  {
    SdtRunOptions o;
    o.cache_root = dir_ / "cache2";
    o.during = during;
    auto run = sdt_record({"%sdshared:hit"}, {dir_ / "main", dir_ / "libsdl.so", "3"}, o);
    auto c = run.counts();
    EXPECT_EQ(c["%sdshared:hit arg1=1"], 1u);
    EXPECT_EQ(c["%sdshared:hit arg1=1000"], 1u);
    EXPECT_EQ(c["%sdshared:hit arg1=1002"], 1u);
    EXPECT_EQ(run.count("%sdshared:hit"), 4u);
  }
}

TEST_P(SdtRecordRoute, ChildrenOfTheWorkloadAreRecordedOthersNot) {
  // The workload's child (sh -c runs forms as a child) is followed; a
  // concurrent unrelated run of the same binary is not.
  // forms is not the command itself: pin it with @PATH.
  std::thread other([&] {
    for (int i = 0; i < 10; ++i) run({dir_ / "forms", "20"});
  });
  SdtRun r;
  try {
    r = sdt_record({"%sfix:plain@" + dir_ / "forms"}, {"/bin/sh", "-c", dir_ / "forms 3; " + dir_ / "forms 2"}, opts_);
  } catch (const sonde::Error& e) {
    ADD_FAILURE() << e.what();
  }
  other.join();
  EXPECT_EQ(r.count("%sfix:plain"), 5u);
  EXPECT_EQ(r.hits.size(), 5u);
}

TEST_P(SdtRecordRoute, KillNineLeavesNothingBehind) {
  // A long-running target that tests its semaphore.
  FormsTarget target(dir_ / "forms");
  EXPECT_EQ(target.semaphore("guarded"), 0);
  EXPECT_EQ(target.probe_bytes(), target.nops());

  // The "recorder": a child process holding the links, killed with SIGKILL.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t recorder = fork();
  if (recorder == 0) {
    close(ready[0]);
    try {
      SdtExtension ext({"%sfix:*"}, dir_ / "cache");
      sonde::record::RecordTarget t;
      t.pids = {target.pid()};
      t.cpus = {0};
      perf_event_attr base{};
      base.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID;
      ext.prepare(t, base);
      (void)!write(ready[1], "1", 1);
      pause();
    } catch (...) {
      (void)!write(ready[1], "0", 1);
    }
    _exit(1);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  ASSERT_EQ(c, '1');
  wait_until([&] { return target.semaphore("guarded") == 1; });
  EXPECT_EQ(target.semaphore("guarded"), 1);
  EXPECT_EQ(target.probe_bytes(), target.int3s());  // int3 at every site
  // The uprobe_multi link of forms (or one link per site), and the fork
  // follower's two raw tracepoint links (task_newtask, sched_process_exit):
  // -p filters by tgid.
  EXPECT_EQ(count_bpf_link_fds(recorder), links_for(target.file().sites.size()) + 2);

  kill(recorder, SIGKILL);
  waitpid(recorder, nullptr, 0);
  auto r = run({sonde_bin(), "sdt", "list", dir_ / "forms"});  // one more sonde command
  EXPECT_EQ(r.exit_code, 0);
  // Link release is asynchronous to the process exit, and per-site events
  // release one by one (~0.1 s each): give it time.
  EXPECT_TRUE(target.wait_detached(5));
  EXPECT_EQ(target.semaphore("guarded"), 0);
  EXPECT_EQ(target.probe_bytes(), target.nops());
  EXPECT_EQ(uprobe_events().find("sfix"), std::string::npos);
}

TEST_P(SdtRecordRoute, AttachFailureReleasesEverySiteAlreadyAttached) {
  // Another tracer holds the last site of forms ("guarded") with no
  // semaphore: the kernel refuses our registration of it (ref_ctr_offset
  // mismatch, EINVAL) after the other eight sites were attached.
  FormsTarget target(dir_ / "forms");
  const auto& sites = target.file().sites;
  ASSERT_EQ(sites.back().name, "guarded");
  std::vector<int> only_guarded = target.nops();
  only_guarded.back() = 0xcc;

  const std::string path = dir_ / "forms";
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = sonde::probe::read_uprobe_pmu().type;
  attr.config1 = reinterpret_cast<uint64_t>(path.c_str());
  attr.config2 = sites.back().pc_offset;
  sonde::UniqueFd other(sonde::kernel::perf_event_open_sized(attr, -1, 0, -1, sonde::kPerfFlagFdCloexec));
  ASSERT_TRUE(other) << errno;
  EXPECT_EQ(target.probe_bytes(), only_guarded);
  try {
    sdt_record({"%sfix:*"}, {dir_ / "forms", "1"}, opts_);
    ADD_FAILURE() << "attached a site another tracer holds with another semaphore";
  } catch (const sonde::Error& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_NE(std::string(e.what()).find("Invalid argument"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count_bpf_link_fds(), 0u);
  EXPECT_EQ(target.probe_bytes(), only_guarded);
  EXPECT_EQ(target.semaphores(), std::vector<int>(target.semaphores().size(), 0));
  other.reset();
  EXPECT_TRUE(target.wait_detached(1));
}

// Times are printed for docs/sdt.md, not asserted: tests do not time.
TEST(SdtScale, ThousandProbesAttachDetachAndEveryHitArrives) {
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_many.c", dir / "many", "-O2"));
  SdtRunOptions opts;
  opts.cache_root = dir / "cache";
  auto run = sdt_record({"%many:*"}, {dir / "many", "2"}, opts);
  EXPECT_EQ(run.sites, 1000u);
  EXPECT_EQ(run.hits.size(), 2000u);
  auto c = run.counts();
  EXPECT_EQ(c["%many:p000 arg1=1 arg2=1000"], 1u);
  EXPECT_EQ(c["%many:p999 arg1=0 arg2=1999"], 1u);
  std::printf("[sdt-scale] sites=%zu attach_ms=%.1f detach_ms=%.1f\n", run.sites, run.attach_seconds * 1e3,
              run.detach_seconds * 1e3);
}

TEST(SdtScale, PerSiteEventsAttachAndDetachEverySite) {
  // The perf-event route's cost grows with the sites: 20 of them, figures
  // printed for docs/sdt.md (per site).
  ScopedSdtAttachRoute route("perf-event");
  TempDir dir;
  ASSERT_TRUE(compile_fixture("sdt_many.c", dir / "many", "-O2"));
  SdtRunOptions opts;
  opts.cache_root = dir / "cache";
  auto run = sdt_record({"%many:p00*", "%many:p01*"}, {dir / "many", "2"}, opts);
  EXPECT_EQ(run.sites, 20u);
  EXPECT_EQ(run.links, 20u);
  EXPECT_EQ(run.hits.size(), 40u);
  auto c = run.counts();
  EXPECT_EQ(c["%many:p000 arg1=1 arg2=1000"], 1u);
  EXPECT_EQ(c["%many:p019 arg1=0 arg2=1019"], 1u);
  std::printf("[sdt-scale perf-event] sites=%zu attach_ms=%.1f (%.2f/site) detach_ms=%.1f (%.1f/site)\n", run.sites,
              run.attach_seconds * 1e3, run.attach_seconds * 1e3 / 20, run.detach_seconds * 1e3,
              run.detach_seconds * 1e3 / 20);
}

TEST(SdtAttachRoute, EnvironmentValuesAndAuto) {
  using sonde::probe::SdtAttachRoute;
  using sonde::probe::parse_sdt_attach_route;
  EXPECT_EQ(parse_sdt_attach_route(""), SdtAttachRoute::Auto);
  EXPECT_EQ(parse_sdt_attach_route("auto"), SdtAttachRoute::Auto);
  EXPECT_EQ(parse_sdt_attach_route("multi"), SdtAttachRoute::Multi);
  EXPECT_EQ(parse_sdt_attach_route("perf-event"), SdtAttachRoute::PerfEvent);
  for (const char* bad : {"perf_event", "Multi", "perf-events", " multi"}) {
    try {
      parse_sdt_attach_route(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const sonde::Error& e) {
      EXPECT_EQ(e.exit_code(), 2) << bad;
      EXPECT_NE(std::string(e.what()).find("SONDE_SDT_ATTACH"), std::string::npos) << e.what();
    }
  }
  // The extension reads it when constructed, before anything is opened.
  ScopedSdtAttachRoute route("bogus");
  EXPECT_THROW(SdtExtension({"%sfix:*"}, "/nonexistent"), sonde::Error);
}

TEST_F(SdtRecord, BothRoutesWriteTheSameStream) {
  // Same HEADER_ATTRs (attr bytes, names, synthetic ids) and the same
  // samples: only the kernel ids of the bpf-output events differ.
  std::vector<SdtRun> runs;
  for (const char* route : kSdtRoutes) {
    ScopedSdtAttachRoute r(route);
    runs.push_back(sdt_record({"%sfix:*"}, {dir_ / "forms", "2"}, opts_));
  }
  ASSERT_EQ(runs[0].descs.size(), runs[1].descs.size());
  ASSERT_EQ(runs[0].descs.size(), 10u);  // 9 probe names + sdt:output
  for (size_t i = 0; i < runs[0].descs.size(); ++i) {
    const auto &a = runs[0].descs[i], &b = runs[1].descs[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(std::memcmp(&a.attr, &b.attr, sizeof a.attr), 0) << a.name;
    if (a.name != "sdt:output") {
      EXPECT_EQ(a.ids, b.ids) << a.name;
    }
  }
  EXPECT_EQ(runs[0].counts(), runs[1].counts());
  EXPECT_EQ(runs[0].hits.size(), 18u);
}

TEST_F(SdtRecord, AutoTakesUprobeMultiOnThisKernel) {
  // This machine's kernel (6.18) has uprobe_multi: auto must not take the
  // slow per-site route.
  ASSERT_TRUE(sonde::probe::uprobe_multi_supported());
  ScopedSdtAttachRoute route("auto");
  auto run = sdt_record({"%sfix:plain"}, {dir_ / "forms", "2"}, opts_);
  EXPECT_EQ(run.route, sonde::probe::SdtAttachRoute::Multi);
  EXPECT_EQ(run.links, 1u);
  EXPECT_EQ(run.count("%sfix:plain"), 2u);
}
