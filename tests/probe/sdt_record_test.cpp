// Recording SDT probes through probe::SdtExtension with the test harness
// (the recorder's part is simulated: fork, prepare, drain, rewrite, stop).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "probe/probe_cache.h"
#include "probe/sdt_note.h"
#include "probe/sdt_harness.h"
#include "support/test_support.h"
#include "util/error.h"

using namespace sonde::test;
using sonde::probe::SdtExtension;

namespace {

const char* kRegsArgs = " arg1=-5 arg2=250 arg3=-1234 arg4=65000 arg5=-100000 arg6=4000000000 arg7=-5000000000 "
                        "arg8=18000000000000000000";

// Runtime address of link-time `vaddr` of `path` in process `pid` (PIE or not).
uint64_t runtime_addr(pid_t pid, const std::string& path, uint64_t vaddr, bool pie) {
  if (!pie) return vaddr;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(path) == std::string::npos) continue;
    std::istringstream ls(line);
    std::string range, perms, off;
    ls >> range >> perms >> off;
    if (std::stoull(off, nullptr, 16) != 0) continue;
    return std::stoull(range.substr(0, range.find('-')), nullptr, 16) + vaddr;
  }
  return 0;
}

template <typename T>
T read_mem(pid_t pid, uint64_t addr) {
  T v{};
  int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (fd >= 0) {
    if (pread(fd, &v, sizeof v, static_cast<off_t>(addr)) != sizeof v) v = T{};
    close(fd);
  }
  return v;
}

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

}  // namespace

TEST_F(SdtRecord, EveryArgumentFormExactValuesAndCounts) {
  auto run = sdt_record({"%sfix:*"}, {dir_ / "forms", "7"}, opts_);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.sites, 9u);
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

TEST_F(SdtRecord, SemaphoreStaysDownWithoutTracing) {
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

TEST_F(SdtRecord, ProbesInADlopenedLibrary) {
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

TEST_F(SdtRecord, ChildrenOfTheWorkloadAreRecordedOthersNot) {
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

TEST_F(SdtRecord, KillNineLeavesNothingBehind) {
  // A long-running target that tests its semaphore.
  pid_t target = fork();
  if (target == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    execl((dir_ / "forms").c_str(), "forms", "1", "loop", nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto file = sonde::probe::scan_sdt_file(dir_ / "forms");
  const sonde::probe::SdtSite* guarded = nullptr;
  for (const auto& s : file.sites)
    if (s.name == "guarded") guarded = &s;
  ASSERT_NE(guarded, nullptr);
  uint64_t sem_addr = runtime_addr(target, dir_ / "forms", guarded->semaphore, true);
  uint64_t pc_addr = runtime_addr(target, dir_ / "forms", guarded->pc, true);
  ASSERT_NE(sem_addr, 0u);
  EXPECT_EQ(read_mem<uint16_t>(target, sem_addr), 0);
  EXPECT_EQ(read_mem<uint8_t>(target, pc_addr), 0x90);

  // The "recorder": a child process holding the links, killed with SIGKILL.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t recorder = fork();
  if (recorder == 0) {
    close(ready[0]);
    try {
      SdtExtension ext({"%sfix:*"}, dir_ / "cache");
      sonde::record::RecordTarget t;
      t.pids = {target};
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
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(read_mem<uint16_t>(target, sem_addr), 1);
  EXPECT_EQ(read_mem<uint8_t>(target, pc_addr), 0xcc);
  // The uprobe_multi link of forms, and the fork follower's two raw
  // tracepoint links (task_newtask, sched_process_exit): -p filters by tgid.
  EXPECT_EQ(count_bpf_link_fds(recorder), 3u);

  kill(recorder, SIGKILL);
  waitpid(recorder, nullptr, 0);
  auto r = run({sonde_bin(), "sdt", "list", dir_ / "forms"});  // one more sonde command
  EXPECT_EQ(r.exit_code, 0);
  // Link release is asynchronous to the process exit: give it a moment.
  for (int i = 0; i < 100 && read_mem<uint16_t>(target, sem_addr) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(read_mem<uint16_t>(target, sem_addr), 0);
  EXPECT_EQ(read_mem<uint8_t>(target, pc_addr), 0x90);
  EXPECT_EQ(uprobe_events().find("sfix"), std::string::npos);
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
}

TEST(SdtScale, ThousandProbesAttachAndDetachWellUnderASecond) {
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
  EXPECT_LT(run.attach_seconds, 1.0);
  EXPECT_LT(run.detach_seconds, 1.0);
  std::printf("[sdt-scale] sites=%zu attach_ms=%.1f detach_ms=%.1f\n", run.sites, run.attach_seconds * 1e3,
              run.detach_seconds * 1e3);
}
