// `sonde record -e 'probe:BIN:DEF'` with arguments behind pointer chains
// (`n->next->label->text`), array elements and strings, read in BPF: the
// values equal what the fixture printed and what perf probe + perf record
// read on the same binary, at -O0 (pointers in frame slots) and -O2.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "probe/probe_test_env.h"

using namespace sonde::test;

namespace {

constexpr int kCalls = 4;
const char* const kArgs =
    "v=n->value nv=n->next->value s2=n->slots[2] w=n->label->weight tag=tag:string nt=n->next->label->text:string";

// The values of each hit, "10 20 302 5 \"first\" \"green\"", from lines whose
// event contains `event` (sonde script's arg1=.., perf script's name=..).
std::vector<std::string> hit_values(const std::string& script, const std::string& event) {
  std::vector<std::string> out;
  for (const auto& line : lines(script)) {
    size_t at = line.find(event);
    if (at == std::string::npos) continue;
    size_t start = line.find(": ", at);
    if (start != std::string::npos && line.compare(start + 2, 1, "(") == 0) start = line.find(") ", start);
    if (start == std::string::npos) continue;
    std::string values, word;
    std::istringstream words(line.substr(start + 2));
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq != std::string::npos) values += (values.empty() ? "" : " ") + word.substr(eq + 1);
    }
    out.push_back(values);
  }
  return out;
}

std::vector<std::string> fixture_values(const std::string& out) {
  std::vector<std::string> want;
  for (const auto& l : lines(out)) {
    int v, nv, s2, w;
    char tag[32], nt[32];
    if (sscanf(l.c_str(), "visit v=%d nv=%d s2=%d w=%d tag=%31s nt=%31s", &v, &nv, &s2, &w, tag, nt) == 6)
      want.push_back(fmt::format("{} {} {} {} \"{}\" \"{}\"", v, nv, s2, w, tag, nt));
  }
  return want;
}

class ProbeChains : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Opt, ProbeChains, ::testing::Values("-O0", "-O2"),
                         [](const auto& info) { return std::string(info.param + 1); });

}  // namespace

TEST_P(ProbeChains, OneStepValuesEqualTheFixturesAndPerfRecords) {
  TempDir dir;
  ProbeFixture bin(dir, GetParam(), "probe_chains.c");
  ASSERT_TRUE(bin.ok());
  auto rec = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " +
                quoted("probe:" + bin.path() + ":visit " + kArgs) + " -- " + quoted(bin.path()) + " " +
                std::to_string(kCalls));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_TRUE(bin.events().empty());  // never in tracefs
  auto want = fixture_values(rec.out);
  ASSERT_EQ(want.size(), static_cast<size_t>(kCalls)) << rec.out;
  auto ours = sh(quoted(sonde_bin()) + " script -F event,trace -i " + quoted(dir / "d"));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(hit_values(ours.out, "%" + bin.group() + ":visit"), want) << ours.out;

  // perf's two steps on the same binary and definition.
  auto def = perf_probe("-q -f -x " + quoted(bin.path()) + " " + quoted(std::string("visit ") + kArgs));
  ASSERT_EQ(def.exit_code, 0) << def.err;
  auto perf_rec = sh("perf record -q -o " + quoted(dir / "perf.data") + " -e " + quoted(bin.group() + ":visit*") +
                     " -- " + quoted(bin.path()) + " " + std::to_string(kCalls) + " >/dev/null 2>&1");
  ASSERT_EQ(perf_rec.exit_code, 0) << perf_rec.err;
  auto theirs = sh("perf script -i " + quoted(dir / "perf.data") + " 2>&1");
  EXPECT_EQ(hit_values(theirs.out, bin.group() + ":visit"), want) << theirs.out;
}

TEST(ProbeChainsErrors, MoreReadsThanTheRecipeHoldsIsAUsageErrorBeforeAnyOutput) {
  TempDir dir;
  ProbeFixture bin(dir, "-O0", "probe_chains.c");
  ASSERT_TRUE(bin.ok());
  // The frame slot, five pointers and the string: seven reads, five allowed.
  auto r = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " +
              quoted("probe:" + bin.path() + ":visit t=n->next->next->next->next->label->text:string") + " -- " +
              quoted(bin.path()) + " 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("t=+0(+0(+32(+8(+8(+8(+8(-24(%bp)))))))):string: one-step recording reads a register, memory "
                       "through up to 5 pointers or a string"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "d"));
  EXPECT_TRUE(bin.events().empty());
}

// Static and global variables (@NAME+0 in perf's definitions): the same
// definitions as perf probe -D, -V --externs as perf's, and the one step
// reads them at their addresses relative to the probe (PIE). The kernel
// refuses @NAME in uprobe definitions, for perf and sonde alike.
TEST_P(ProbeChains, StaticVariablesAsPerfDefinesThemAndOneStepReadsThem) {
  TempDir dir;
  ProbeFixture bin(dir, GetParam(), "probe_chains.c");
  ASSERT_TRUE(bin.ok());
  const std::string x = "-x " + quoted(bin.path()) + " ";
  const std::string def = "visit visits mode:string tag:string";
  auto ours = sonde_probe(x + "-D " + quoted(def));
  auto theirs = perf_probe(x + "-D " + quoted(def) + " 2>/dev/null");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out, theirs.out);
  EXPECT_NE(ours.out.find("visits=@visits+0:s32 mode_string=+0(@mode+0):string"), std::string::npos) << ours.out;
  auto vars = sonde_probe(x + "-V visit --externs");
  ASSERT_EQ(vars.exit_code, 0) << vars.err;
  EXPECT_EQ(vars.out, perf_probe(x + "-V visit --externs 2>/dev/null").out);
  EXPECT_NE(vars.out.find("\tint\tvisits\n"), std::string::npos) << vars.out;

  auto rec = sh(quoted(sonde_bin()) + " record -q -o " + quoted(dir / "d") + " -e " +
                quoted("probe:" + bin.path() + ":" + def) + " -- " + quoted(bin.path()) + " " + std::to_string(kCalls));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<std::string> want;
  for (const auto& l : lines(rec.out)) {
    int v, nv, s2, w, visits;
    char tag[32], nt[32], mode[32];
    if (sscanf(l.c_str(), "visit v=%d nv=%d s2=%d w=%d tag=%31s nt=%31s visits=%d mode=%31s", &v, &nv, &s2, &w, tag,
               nt, &visits, mode) == 8)
      want.push_back(fmt::format("{} \"{}\" \"{}\"", visits, mode, tag));
  }
  ASSERT_EQ(want.size(), static_cast<size_t>(kCalls)) << rec.out;
  auto script = sh(quoted(sonde_bin()) + " script -F event,trace -i " + quoted(dir / "d"));
  EXPECT_EQ(hit_values(script.out, "%" + bin.group() + ":visit"), want) << script.out;

  auto define = sonde_probe("-q " + x + quoted("visit visits"));
  EXPECT_EQ(define.exit_code, 1) << define.err;
  EXPECT_EQ(lines(define.err).size(), 1u) << define.err;
  EXPECT_TRUE(bin.events().empty());
}

TEST(ProbeChainsErrors, ExternsWithoutVarsIsAUsageError) {
  auto r = sonde_probe("-x /bin/true --externs -F");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sonde: probe: --externs goes with -V\n");
}

namespace {

// A process of the fixture calling visit() forever, killed (by its pid) and
// reaped when the test ends, passed or failed.
class RunningTarget {
 public:
  explicit RunningTarget(const std::string& path) : pid_(fork()) {
    if (pid_ == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      execl(path.c_str(), "probe_chains", "-1", nullptr);
      _exit(127);
    }
  }
  ~RunningTarget() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  // The byte at `vaddr` of the executable mapped from `path` (its first
  // mapping starts at file offset 0), -1 when unreadable.
  int byte_at(const std::string& path, uint64_t vaddr) const {
    std::ifstream maps("/proc/" + std::to_string(pid_) + "/maps");
    uint64_t base = 0;
    for (std::string line; std::getline(maps, line);)
      if (line.find(path) != std::string::npos) {
        base = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
        break;
      }
    int fd = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDONLY);
    uint8_t b = 0;
    bool ok = fd >= 0 && base && pread(fd, &b, 1, static_cast<off_t>(base + vaddr)) == 1;
    if (fd >= 0) close(fd);
    return ok ? b : -1;
  }

 private:
  pid_t pid_;
};

}  // namespace

// The one step's uprobes live only as long as the recorder's BPF link: after
// `kill -9` of the recorder, the probed instruction in the target is its own
// again (the int3 is gone) and nothing was ever written to tracefs.
TEST(ProbeChainsHygiene, KillNineOfTheOneStepRecorderLeavesNoProbe) {
  TempDir dir;
  ProbeFixture bin(dir, "-O2", "probe_chains.c");
  ASSERT_TRUE(bin.ok());
  auto d = sonde_probe("-x " + quoted(bin.path()) + " -D visit");
  size_t at = d.out.find(":0x");
  ASSERT_NE(at, std::string::npos) << d.out;
  const uint64_t offset = std::stoull(d.out.substr(at + 3), nullptr, 16);  // PIE text: vaddr = file offset
  RunningTarget target(bin.path());
  int original = -1;
  ASSERT_TRUE(wait_until([&] { return (original = target.byte_at(bin.path(), offset)) >= 0; }));
  ASSERT_NE(original, 0xcc);

  pid_t rec = fork();
  if (rec == 0) {
    std::string pid = std::to_string(target.pid()), spec = "probe:" + bin.path() + ":visit v=n->value tag:string";
    execl(sonde_bin().c_str(), "sonde", "record", "-q", "-p", pid.c_str(), "-e", spec.c_str(), "-o",
          (dir / "out").c_str(), nullptr);
    _exit(127);
  }
  EXPECT_TRUE(wait_until([&] { return target.byte_at(bin.path(), offset) == 0xcc; }));
  EXPECT_TRUE(wait_until([&] {
    auto s = run({sonde_bin(), "script", "-F", "event,trace", "-i", dir / "out"});
    return s.out.find(":visit: arg1=") != std::string::npos;
  }));
  kill(rec, SIGKILL);
  int status = 0;
  waitpid(rec, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  // The link is released asynchronously to the recorder's exit.
  EXPECT_TRUE(wait_until([&] { return target.byte_at(bin.path(), offset) == original; }));
  EXPECT_TRUE(bin.events().empty());
}
