// The RecordExtension hooks, exercised by a fake extension that opens its
// own page-fault events on the workload (the SDT extension's shape:
// per-CPU fds in target.cpus order, the base attr's sample layout).
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/perf_event.h"
#include "record/record_test_util.h"
#include "record/recorder.h"
#include "record/recording_reader.h"
#include "util/error.h"

using namespace sonde::test;
using namespace sonde::uapi;  // perf_event_attr, PERF_*
namespace rec = sonde::record;

namespace {

struct Calls {
  int prepare = 0, stop = 0;
  size_t rewritten = 0, dropped = 0;
  std::vector<pid_t> exits;
  std::vector<std::pair<std::string, std::string>> exec_maps;  // path, build-id
  pid_t workload = -1;
  uint64_t base_sample_type = 0;
};

class FakeExtension : public rec::RecordExtension {
 public:
  FakeExtension(Calls& c, bool fail_prepare) : c_(c), fail_(fail_prepare) {}
  void prepare(const rec::RecordTarget& t, const perf_event_attr& base) override {
    ++c_.prepare;
    c_.workload = t.workload_pid;
    c_.base_sample_type = base.sample_type;
    if (fail_) sonde::throw_runtime("fake extension refuses");
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_PAGE_FAULTS;
    a.sample_period = 1;
    a.sample_type = base.sample_type;
    a.sample_id_all = 1;
    a.read_format = PERF_FORMAT_ID;
    a.disabled = 1;
    a.enable_on_exec = 1;
    a.inherit = 1;
    for (int cpu : t.cpus) {
      int fd = sonde::kernel::perf_event_open_sized(a, t.workload_pid, cpu, -1, sonde::kPerfFlagFdCloexec);
      if (fd < 0) sonde::throw_runtime("fake: perf_event_open failed");
      uint64_t id = 0;
      ::ioctl(fd, sonde::kPerfEventIocId, &id);
      fds_.push_back(fd);
      ids_.push_back(id);
    }
    attr_ = a;  // with the size the kernel accepted
  }
  bool adds_events() const override { return true; }
  std::vector<sonde::format::EventDesc> attrs() override { return {{attr_, "fake:faults", ids_}}; }
  std::vector<int> ring_fds() override { return fds_; }
  bool rewrite_sample(std::span<uint8_t> record) override {
    // Drop every other sample to prove the return value is honoured.
    if (++seen_ % 2 == 0) {
      ++c_.dropped;
      return false;
    }
    ++c_.rewritten;
    EXPECT_GE(record.size(), 48u);
    return true;
  }
  void on_exit(pid_t pid) override { c_.exits.push_back(pid); }
  void on_exec_mapping(pid_t, const std::string& path, const sonde::BuildId& id) override {
    c_.exec_maps.emplace_back(path, id.hex());
  }
  void stop() override {
    ++c_.stop;
    for (int fd : fds_) ::close(fd);
    fds_.clear();
  }

 private:
  Calls& c_;
  bool fail_;
  perf_event_attr attr_{};
  std::vector<int> fds_;
  std::vector<uint64_t> ids_;
  size_t seen_ = 0;
};

TEST(RecordExtension, EventsAreWrittenDrainedRewrittenAndStopped) {
  TempDir dir;
  std::string fixture = dir / "hot_loop", data = dir / "ext.data";
  ASSERT_TRUE(compile_fixture("hot_loop.c", fixture));
  Calls calls;
  rec::RecordOptions o;
  o.output = data;
  o.quiet = true;
  o.command = {fixture, "0.2"};
  o.extensions.push_back(std::make_unique<FakeExtension>(calls, false));
  auto sum = rec::record(o);
  EXPECT_EQ(sum.exit_status, 0);
  EXPECT_EQ(calls.prepare, 1);
  EXPECT_EQ(calls.stop, 1);
  EXPECT_TRUE(calls.base_sample_type & PERF_SAMPLE_RAW);
  EXPECT_TRUE(calls.base_sample_type & PERF_SAMPLE_IDENTIFIER);
  EXPECT_GT(calls.rewritten, 10u);
  EXPECT_EQ(calls.exits, std::vector<pid_t>{calls.workload});
  bool saw_fixture = false;
  for (auto& [path, id] : calls.exec_maps)
    if (path == fixture) {
      saw_fixture = true;
      EXPECT_EQ(id, readelf_build_id(fixture));
    }
  EXPECT_TRUE(saw_fixture);

  auto f = read_recording(data);
  ASSERT_EQ(f.event_names.size(), 2u);
  EXPECT_EQ(f.event_names[1], "fake:faults");
  size_t fake = 0;
  for (const auto& s : f.samples) fake += s.event == "fake:faults";
  EXPECT_EQ(fake, calls.rewritten);  // the dropped ones are not in the stream
  EXPECT_EQ(sum.samples, f.samples.size());
  auto ps = run({"perf", "script", "-i", data, "-F", "event"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  EXPECT_FALSE(has_perf_complaint(ps.err)) << ps.err;
  EXPECT_EQ(count_lines_with(ps.out, "fake:faults"), fake);
}

TEST(RecordExtension, StopIsCalledWhenPrepareThrowsAndNoFileIsLeft) {
  TempDir dir;
  Calls calls;
  rec::RecordOptions o;
  o.output = dir / "never.data";
  o.command = {"true"};
  o.extensions.push_back(std::make_unique<FakeExtension>(calls, true));
  EXPECT_THROW(rec::record(o), sonde::Error);
  EXPECT_EQ(calls.prepare, 1);
  EXPECT_EQ(calls.stop, 1);
  EXPECT_FALSE(file_exists(dir / "never.data"));
}

TEST(RecordExtension, FactoryReceivesThePercentSpecs) {
  TempDir dir;
  Calls calls;
  std::vector<std::string> got;
  rec::RecordOptions o;
  o.output = dir / "f.data";
  o.quiet = true;
  o.command = {"true"};
  o.events = {"cpu-clock,%prov:one", "%prov:two"};
  o.extension_factory = [&](const std::vector<std::string>& specs) {
    got = specs;
    std::vector<std::unique_ptr<rec::RecordExtension>> v;
    v.push_back(std::make_unique<FakeExtension>(calls, false));
    return v;
  };
  auto sum = rec::record(o);
  EXPECT_EQ(sum.exit_status, 0);
  EXPECT_EQ(got, (std::vector<std::string>{"%prov:one", "%prov:two"}));
  EXPECT_EQ(calls.prepare, 1);
  EXPECT_EQ(calls.stop, 1);
}

}  // namespace
