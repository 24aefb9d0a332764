#include "offcpu/offcpu_extension.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "offcpu/offcpu_bpf.h"
#include "offcpu/offcpu_sample.h"
#include "util/clock.h"
#include "util/diagnostics.h"
#include "util/error.h"
#include "util/fields.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::offcpu {
namespace {

constexpr uint64_t kMaxThreshMs = 3600 * 1000;

}  // namespace

SchedulerRange scheduler_range(std::string_view kallsyms) {
  // "ADDR TYPE NAME[ \t[module]]" per line; the symbol after __schedule
  // is the lowest address above it (modules are not in address order).
  SchedulerRange r;
  std::vector<uint64_t> addrs;
  size_t pos = 0;
  while (pos < kallsyms.size()) {
    size_t eol = kallsyms.find('\n', pos);
    std::string_view line = kallsyms.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? kallsyms.size() : eol + 1;
    std::string_view addr_text = next_field(line);
    next_field(line);
    std::string_view name = next_field(line);
    auto addr = parse_uint<uint64_t>(addr_text, 0, UINT64_MAX, IntSyntax::Hex);
    if (!addr || addr.value == 0) continue;
    if (name == "__schedule") r.begin = addr.value;
    addrs.push_back(addr.value);
  }
  if (!r.begin) return r;
  r.end = UINT64_MAX;
  for (uint64_t a : addrs)
    if (a > r.begin && a < r.end) r.end = a;
  return r;
}

void trim_to_scheduler(std::vector<uint64_t>& kernel_frames, const SchedulerRange& range) {
  if (!range.begin) return;
  for (size_t i = 0; i < kernel_frames.size(); ++i)
    if (kernel_frames[i] >= range.begin && kernel_frames[i] < range.end) {
      kernel_frames.erase(kernel_frames.begin(), kernel_frames.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

uint64_t parse_offcpu_thresh(const std::string& text) {
  auto v = parse_uint<uint64_t>(text);
  if (!v || v.value > kMaxThreshMs)
    throw_usage("invalid --off-cpu-thresh '{}': expected milliseconds, an integer from 0 to {}", text, kMaxThreshMs);
  return v.value;
}

OffcpuExtension::OffcpuExtension(OffcpuOptions options) : options_(options), record_(kOffcpuSampleMax) {}

OffcpuExtension::~OffcpuExtension() { stop(); }

void OffcpuExtension::prepare(const record::RecordTarget& target, const perf_event_attr& base) {
  base_ = base;
  if (auto text = read_small_file("/proc/kallsyms")) scheduler_ = scheduler_range(*text);
  // --call-graph dwarf: the recorder's events copy user stacks, and so do
  // long blocks (docs/offcpu.md).
  const uint32_t stack_bytes = std::min<uint32_t>(base.sample_stack_user, SONDE_OFFCPU_STACK_MAX);
  std::optional<CfiMaps> cfi;
  if (options_.cfi_maps) cfi = options_.cfi_maps();
  bpf_ = std::make_unique<OffcpuBpf>(stack_bytes != 0, cfi ? &*cfi : nullptr);
  filter_ = !target.system_wide;
  sonde_offcpu_config c{};
  c.stack_bytes = stack_bytes;
  c.cfi_user = cfi ? 1 : 0;
  c.thresh_ns = options_.thresh_ms.value_or(stack_bytes ? kDefaultDwarfThreshMs : kDefaultThreshMs) * 1000000ULL;
  c.mode = filter_ ? SONDE_OFFCPU_TARGETS : SONDE_OFFCPU_ALL;
  c.self_tgid = static_cast<uint32_t>(::getpid());
  bpf_->configure(c);
  for (pid_t p : target.pids) bpf_->add_tgid(p);
  for (pid_t t : target.tids) bpf_->add_tid(t);
  if (target.workload_pid > 0) bpf_->add_tgid(target.workload_pid);
  bpf_->attach(filter_);
  last_flush_ = std::chrono::steady_clock::now();
}

std::vector<format::EventDesc> OffcpuExtension::attrs() { return offcpu_event_descs(base_); }

int OffcpuExtension::wake_fd() const { return bpf_ ? bpf_->events_fd() : -1; }

const std::vector<uint64_t>& OffcpuExtension::frames(int32_t stack_id, bool kernel) {
  auto it = stacks_.find(stack_id);
  if (it == stacks_.end()) {
    auto frames = bpf_->stack(stack_id);
    // The stack was taken inside the tracepoint: its first frames are the
    // BPF program and the tracing code, which say nothing of the thread.
    if (kernel) trim_to_scheduler(frames, scheduler_);
    it = stacks_.emplace(stack_id, std::move(frames)).first;
  }
  return it->second;
}

void OffcpuExtension::write_block(const record::RecordWrite& write, const sonde_offcpu_key& key, uint32_t cpu,
                                  uint64_t time, uint64_t ns, const OffcpuBpf::UserStack& copy) {
  OffcpuSample s;
  s.id = key.kind == SONDE_OFFCPU_PREEMPT ? kOffcpuPreemptId : kOffcpuBlockedId;
  s.pid = key.pid;
  s.tid = key.tid;
  s.cpu = cpu;
  s.time = time;
  s.ns = ns;
  s.kernel = frames(key.kernel_stack, true);
  s.user = frames(key.user_stack, false);
  s.dwarf_layout = base_.sample_stack_user != 0;
  s.regs = copy.regs;
  s.stack = copy.stack;
  size_t n = build_offcpu_sample(record_, s);
  write(std::span<const uint8_t>(record_.data(), n));
  ++written_;
}

void OffcpuExtension::flush_sums(const record::RecordWrite& write, bool all) {
  const uint64_t now = monotonic_ns();
  bpf_->take_sums([&](const sonde_offcpu_key& k, const sonde_offcpu_sum& s) {
    if (s.ns) write_block(write, k, s.cpu, now, s.ns);
  }, all);
}

// At the end: threads still off CPU get the time they have been away so
// far (a -p target asleep for the whole recording is all off-CPU).
void OffcpuExtension::flush_open_blocks(const record::RecordWrite& write) {
  const uint64_t now = monotonic_ns();
  bpf_->for_each_start([&](const sonde_offcpu_start& st) {
    if (st.time >= now) return;
    sonde_offcpu_key k{st.pid, st.tid, st.user_stack, st.kernel_stack, st.kind, 0};
    write_block(write, k, 0, now, now - st.time);
  });
}

size_t OffcpuExtension::produce(const record::RecordWrite& write, bool final) {
  if (!bpf_ || stopped_) return 0;
  written_ = 0;
  bpf_->consume_events([&](const sonde_offcpu_event& e, const OffcpuBpf::UserStack& copy) {
    write_block(write, e.key, e.cpu, e.time, e.ns, copy);
  });
  auto now = std::chrono::steady_clock::now();
  if (final || now - last_flush_ >= kFlushInterval) {
    last_flush_ = now;
    flush_sums(write, false);
  }
  if (final) {
    bpf_->detach();  // nothing more can arrive: take what is left
    bpf_->consume_events([&](const sonde_offcpu_event& e, const OffcpuBpf::UserStack& copy) {
    write_block(write, e.key, e.cpu, e.time, e.ns, copy);
  });
    flush_sums(write, true);
    flush_open_blocks(write);
    warn_losses();
  }
  return written_;
}

void OffcpuExtension::warn_losses() const {
  uint64_t ring = bpf_->stat(SONDE_OFFCPU_STAT_RING_FULL), starts = bpf_->stat(SONDE_OFFCPU_STAT_STARTS_FULL);
  uint64_t bad = bpf_->stat(SONDE_OFFCPU_STAT_BAD_ARGS), no_copy = bpf_->stat(SONDE_OFFCPU_STAT_COPIES_FULL);
  if (ring || starts)
    warn("off-cpu: {} blocks lost (ring buffer full), {} switch-outs not followed "
                 "(too many threads off CPU)", ring, starts);
  if (uint64_t no_stack = bpf_->stat(SONDE_OFFCPU_STAT_NO_STACK))
    warn("off-cpu: {} switch-outs lost a kernel or user stack (another stack held "
                 "its slot in the stack map); their blocks lack those frames", no_stack);
  if (no_copy)
    warn("off-cpu: {} switch-outs without a user stack copy (more than {} "
         "threads off CPU at once); their blocks have frame-pointer stacks", no_copy, kUserStackCopies);
  if (uint64_t collided = bpf_->stat(SONDE_OFFCPU_STAT_CFI_COLLISION))
    warn("off-cpu: {} switch-outs kept frame-pointer user stacks: their CFI stack's id was another's", collided);
  if (uint64_t unseen = bpf_->stat(SONDE_OFFCPU_STAT_NO_SWITCH_IN))
    warn("off-cpu: {} blocks not measured: the kernel reported no switch-in before the thread's next "
         "switch-out, so their end is unknown", unseen);
  if (bad)
    warn("off-cpu: this kernel's sched_switch tracepoint has another argument layout; "
                 "{} switches ignored", bad);
}

void OffcpuExtension::on_fork(pid_t pid, pid_t /*ppid*/) {
  // The kernel follows forks itself; the FORK record is a second chance
  // (e.g. a child that never blocked before the recorder saw it).
  if (bpf_ && filter_ && !stopped_) bpf_->add_tgid(pid);
}

uint64_t OffcpuExtension::stat(uint32_t which) const { return bpf_ ? bpf_->stat(which) : 0; }

void OffcpuExtension::stop() {
  if (stopped_) return;
  stopped_ = true;
  bpf_.reset();  // closes the links and the maps
}

}  // namespace sonde::offcpu
