#include "cfi/cfi_extension.h"

#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <chrono>

#include "cfi/cfi_sample.h"
#include "util/diagnostics.h"
#include "util/error.h"
#include "util/proc_maps.h"

namespace sonde::cfi {

namespace {

// How long the worker watches the workload's mappings after the start.
constexpr auto kWorkloadWatch = std::chrono::milliseconds(300);

// The recorder's own libc and dynamic loader: nearly every process maps the
// same files.
void precompile_system_libraries(TableStore& store) {
  auto text = read_proc_maps(0);
  if (!text) return;
  for_each_maps_line(*text, [&](const MapsLine& m) {
    if (!m.executable() || !m.is_path()) return;
    std::string_view name = m.path.substr(m.path.rfind('/') + 1);
    if (name.starts_with("libc.so") || name.starts_with("ld-linux"))
      store.object(std::string(m.path), makedev(m.dev_major, m.dev_minor), m.inode);
  });
}

}  // namespace

CfiExtension::CfiExtension(CfiOptions options) : options_(options), record_(kCfiSampleMax) {}

CfiExtension::~CfiExtension() { stop(); }

void CfiExtension::prepare(const record::RecordTarget& target, const perf_event_attr& base) {
  if (base.sample_type & ~kWritableSampleType)
    throw_usage("--call-graph cfi cannot write samples with this event's fields (sample_type {:#x})",
                base.sample_type);
  sample_type_ = base.sample_type;
  bpf_ = std::make_unique<CfiBpf>(options_.sizes);
  bpf_->configure(sonde_cfi_config{SONDE_CFI_MAX_FRAMES, 0});
  store_ = std::make_unique<TableStore>(
      [this](uint32_t index, const sonde_cfi_table& t, std::span<const uint64_t> rows) {
        return bpf_->set_table(index, t, rows);
      },
      options_.sizes.max_tables, options_.sizes.max_rows);
  // The workload's executable, the C library and the dynamic loader now:
  // their tables are ready when it starts (the first samples of a process
  // come before the recorder hears of its mappings).
  struct stat st {};
  if (!target.command_path.empty() && ::stat(target.command_path.c_str(), &st) == 0)
    store_->object(target.command_path, st.st_dev, st.st_ino);
  precompile_system_libraries(*store_);
  // -p: the processes' tables before the first sample.
  if (target.workload_pid < 0)
    for (pid_t pid : target.pids) refresh(pid);
  workload_pid_ = target.workload_pid;
  command_path_ = target.command_path;
  worker_ = std::thread([this] { work(); });
}

void CfiExtension::on_sampling_events(std::span<const record::SamplingEvent> events) {
  for (const auto& e : events) {
    bpf_->attach(e.fd);
    if (e.cpu < 0) continue;
    if (static_cast<size_t>(e.cpu) >= id_by_cpu_.size()) id_by_cpu_.resize(static_cast<size_t>(e.cpu) + 1, 0);
    if (!id_by_cpu_[static_cast<size_t>(e.cpu)]) id_by_cpu_[static_cast<size_t>(e.cpu)] = e.id;
  }
}

// Not the ring buffer's fd: the recorder's loop wakes on it but the ring is
// emptied by produce(), on the writer's thread, so the loop would spin while
// samples keep coming. The recorder calls produce() at least every 100 ms,
// and the ring buffer holds seconds of samples (kRingBytes in cfi.bpf.c).
int CfiExtension::wake_fd() const { return -1; }

size_t CfiExtension::produce(const record::RecordWrite& write, bool final) {
  if (!bpf_) return 0;
  size_t n = 0;
  bpf_->consume([&](const sonde_cfi_sample& s, std::span<const uint64_t> frames) {
    uint64_t id = s.cpu < id_by_cpu_.size() ? id_by_cpu_[s.cpu] : 0;
    if (!id && !id_by_cpu_.empty()) id = *std::max_element(id_by_cpu_.begin(), id_by_cpu_.end());
    if (!id) {
      ++no_cpu_id_;
      return;
    }
    write({record_.data(), build_cfi_sample(record_, sample_type_, id, s, frames)});
    ++n;
  });
  written_ += n;
  if (final) report();
  return n;
}

void CfiExtension::refresh(pid_t pid) {
  std::optional<sonde_cfi_process> p;
  {
    std::lock_guard lock(mu_);
    p = process_mappings(pid, *store_);
  }
  if (p) bpf_->set_process(pid, *p);
  else bpf_->forget_process(pid);
}

void CfiExtension::enqueue(pid_t pid) {
  // The recorder itself (-a samples it too): its objects' tables would
  // cost more than its own stacks are worth.
  if (!bpf_ || stopped_ || pid == ::getpid()) return;
  std::lock_guard lock(mu_);
  if (!queued_.insert(pid).second) return;
  queue_.push_back(pid);
}

// The workload runs its command: before, its mappings are the recorder's
// own (a fork), whose tables would only cost time.
bool CfiExtension::exec_done() const {
  char buf[4096];
  std::string link = "/proc/" + std::to_string(workload_pid_) + "/exe";
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  return n > 0 && std::string_view(buf, static_cast<size_t>(n)) == command_path_;
}

// Waits for the program's requests (a sample in a process or mapping not
// known yet) and the recorder's news (forks, exits, executable mappings),
// and reads those processes' mappings again. Its own thread: compiling a
// large object's table takes a while, and the recorder's drains must not.
void CfiExtension::work() {
  // As the recorder's drains: a loaded machine must not delay the tables
  // of a process that just started (its samples wait for them).
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), -10);
  pollfd pfd{bpf_->requests_fd(), POLLIN, 0};
  auto watch_until = std::chrono::steady_clock::now() + kWorkloadWatch;
  for (;;) {
    // The workload's first milliseconds: its mappings read every
    // millisecond while ld.so maps its libraries, so that its first samples
    // find them (a request would come a sample late).
    bool watching = workload_pid_ > 0 && std::chrono::steady_clock::now() < watch_until;
    ::poll(&pfd, 1, watching ? 1 : 20);
    if (watching && exec_done()) enqueue(workload_pid_);
    bpf_->consume_requests([this](pid_t pid) { enqueue(pid); });
    std::deque<pid_t> batch;
    {
      std::lock_guard lock(mu_);
      if (quit_) return;
      batch.swap(queue_);
      queued_.clear();
    }
    for (pid_t pid : batch) refresh(pid);
  }
}

// A child shares its parent's mappings until it maps or execs more (which
// the recorder reports too): its own entry either way.
void CfiExtension::on_fork(pid_t pid, pid_t) { enqueue(pid); }
void CfiExtension::on_exit(pid_t pid) { enqueue(pid); }
void CfiExtension::on_exec_mapping(pid_t pid, const std::string&, const BuildId&) { enqueue(pid); }

CfiCounts CfiExtension::counts() const {
  if (!bpf_) return final_counts_;
  CfiCounts c;
  c.samples = bpf_->stat(SONDE_CFI_STAT_SAMPLES);
  c.ring_full = bpf_->stat(SONDE_CFI_STAT_RING_FULL);
  c.no_table = bpf_->stat(SONDE_CFI_STAT_NO_TABLE);
  c.cfi_frames = bpf_->stat(SONDE_CFI_STAT_CFI_FRAMES);
  c.fp_frames = bpf_->stat(SONDE_CFI_STAT_FP_FRAMES);
  for (uint32_t i = 0; i < SONDE_CFI_NSTOPS; ++i) c.stops[i] = bpf_->stat(i);
  c.written = written_;
  c.no_cpu_id = no_cpu_id_;
  return c;
}

TableTotals CfiExtension::table_totals() const {
  std::lock_guard lock(mu_);
  return store_ ? store_->totals() : TableTotals{};
}

void CfiExtension::report() const {
  CfiCounts c = counts();
  TableTotals t = table_totals();
  if (c.samples)
    note("cfi: {} samples unwound in BPF ({} frames by CFI, {} by frame pointer); walks stopped at the root {}, "
         "at the depth limit {}, at code in no known mapping {}, at an unsupported rule {}, at an unreadable "
         "stack {}, at a bad frame {}, in a process not known yet {}, kernel-only {}",
         c.samples, c.cfi_frames, c.fp_frames, c.stops[SONDE_STOP_ROOT], c.stops[SONDE_STOP_DEPTH],
         c.stops[SONDE_STOP_NO_MAPPING], c.stops[SONDE_STOP_UNSUPPORTED], c.stops[SONDE_STOP_READ],
         c.stops[SONDE_STOP_BAD_FRAME], c.stops[SONDE_STOP_NO_PROCESS], c.stops[SONDE_STOP_KERNEL_ONLY]);
  note("cfi: unwind tables: {} tables, {} rows ({:.1f} MiB of the {:.0f} MiB bound) for {} objects ({} without "
       "CFI, {} over the bound); {} of {} address ranges unsupported; compiled in {:.2f} s",
       t.tables, t.rows, t.rows * 8.0 / (1 << 20), options_.sizes.max_rows * 8.0 / (1 << 20), t.objects,
       t.without_cfi, t.over_bound, t.unsupported, t.ranges, t.compile_seconds);
  if (c.no_table)
    warn("cfi: {} samples met code whose mapping had no table yet (their user chain stops there)", c.no_table);
  if (c.ring_full || c.no_cpu_id)
    warn("cfi: {} samples lost (BPF ring buffer full), {} on a CPU with no sampling event", c.ring_full,
         c.no_cpu_id);
}

void CfiExtension::stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  if (worker_.joinable()) worker_.join();
  final_counts_ = counts();
  bpf_.reset();  // the maps and our reference to the program; the events' fds hold the rest
}

}  // namespace sonde::cfi
