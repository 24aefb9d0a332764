// The recorder's events: one attr per -e event (the first also tracks
// tasks and mappings), opened on every recorded CPU for every target, one
// ring buffer per CPU that the CPU's other fds write into; then the
// extensions, prepared with the first attr, and their own rings.
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "format/user_regs.h"
#include "kernel/perf_event.h"
#include "record/recorder_parts.h"
#include "util/error.h"

namespace sonde::record {

perf_event_attr Recorder::make_attr(const EventSpec& e, bool tracking) const {
  perf_event_attr a{};
  a.size = format::kAttrSize;
  a.type = e.type;
  a.config = e.config;
  a.sample_type = sample_type_;
  a.read_format = PERF_FORMAT_ID;
  if (opts_.period) {
    a.sample_period = *opts_.period;
  } else if (e.tracepoint) {
    a.sample_period = 1;  // every hit, as perf does for tracepoints
  } else {
    a.freq = 1;
    a.sample_freq = plan_.freq;
  }
  if (opts_.user_stack_bytes) {
    // perf's --call-graph dwarf: the kernel walks only the kernel part; the
    // user part is unwound later from these registers and stack bytes.
    a.sample_regs_user = format::kUnwindRegsX86_64;
    a.sample_stack_user = opts_.user_stack_bytes;
    a.exclude_callchain_user = 1;
  }
  // --call-graph cfi: the BPF unwinder makes the user part (src/cfi).
  if (opts_.cfi_callchain) a.exclude_callchain_user = 1;
  if (opts_.monotonic_clock) {
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
  }
  a.disabled = 1;
  a.inherit = opts_.inherit ? 1 : 0;
  a.enable_on_exec = plan_.workload ? 1 : 0;
  // --all-user / --all-kernel override the event's own :u/:k, as in perf.
  a.exclude_user = opts_.all_kernel ? 1 : opts_.all_user ? 0 : e.exclude_user;
  a.exclude_kernel = opts_.all_user ? 1 : opts_.all_kernel ? 0 : e.exclude_kernel;
  // perf sets it only where call chains are recorded.
  a.exclude_callchain_kernel = opts_.user_callchain && (sample_type_ & PERF_SAMPLE_CALLCHAIN) ? 1 : 0;
  if (opts_.per_thread_counts) {
    // perf record -s: each exiting thread's count comes as a READ record.
    a.inherit_stat = 1;
    a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  }
  a.exclude_guest = 1;
  a.sample_id_all = 1;
  if (plan_.mono_clock) {
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
  }
  // Wake the recorder when a buffer is half full; the poll timeout covers the rest.
  a.watermark = 1;
  a.wakeup_watermark = static_cast<uint32_t>(opts_.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) / 2);
  if (tracking) {
    a.mmap = 1;
    a.mmap2 = 1;
    a.comm = 1;
    a.comm_exec = 1;
    a.task = 1;
    a.build_id = plan_.kernel_build_ids ? 1 : 0;
    // With --call-graph dwarf, the data mappings too, as perf records them:
    // perf's unwinder reads a library's .eh_frame_hdr (in its read-only,
    // non-executable segment) through them, and stops at the first frame
    // without them.
    a.mmap_data = opts_.user_stack_bytes || opts_.data_addresses ? 1 : 0;
  }
  return a;
}

void Recorder::open_events() {
  sample_type_ = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                 PERF_SAMPLE_PERIOD;
  if (opts_.callchain) sample_type_ |= PERF_SAMPLE_CALLCHAIN;
  if (opts_.data_addresses) sample_type_ |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
  if (opts_.user_stack_bytes) sample_type_ |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  bool any_tp = std::any_of(parsed_.events.begin(), parsed_.events.end(), [](auto& e) { return e.tracepoint; });
  bool any_ext = std::any_of(extensions_.begin(), extensions_.end(), [](RecordExtension* e) { return e->adds_events(); });
  if (any_tp || any_ext) sample_type_ |= PERF_SAMPLE_RAW;

  for (size_t i = 0; i < parsed_.events.size(); ++i) {
    OpenEvent ev;
    ev.spec = parsed_.events[i];
    ev.attr = make_attr(ev.spec, i == 0);
    events_.push_back(std::move(ev));
  }

  // One ring buffer per CPU; every other fd on that CPU is redirected into it.
  std::vector<int> ring_owner(cpus_.size(), -1);
  std::vector<pid_t> targets = plan_.system_wide        ? std::vector<pid_t>{-1}
                               : plan_.workload ? std::vector<pid_t>{workload_.pid()}
                                                    : task_targets_;
  for (auto& ev : events_) {
    for (size_t c = 0; c < cpus_.size(); ++c) {
      for (pid_t t : targets) {
        UniqueFd fd = kernel::open_event(ev.attr, t, cpus_[c], ev.spec.name);
        ev.ids.push_back(kernel::event_id(fd.get()));
        verbose("opened {} (type {}, config {:#x}) on cpu {} for {}: id {}", ev.spec.name, ev.attr.type,
                ev.attr.config, cpus_[c], t < 0 ? std::string("every task") : "pid " + std::to_string(t),
                ev.ids.back());
        if (ring_owner[c] < 0) {
          ring_owner[c] = fd.get();
          rings_.push_back(Ring{std::make_unique<RingBuffer>(fd.get(), opts_.mmap_pages), nullptr, cpus_[c]});
        } else if (::ioctl(fd.get(), kPerfEventIocSetOutput, ring_owner[c]) != 0) {
          throw_runtime("cannot share a ring buffer for event '{}': {}", ev.spec.name, errno_text(errno));
        }
        set_tracepoint_filter(fd.get(), ev.spec.name);
        ev.fds.push_back(std::move(fd));
      }
    }
  }
  prepare_extensions();
}

// --filter: the kernel evaluates it before the sample reaches the buffer.
void Recorder::set_tracepoint_filter(int fd, const std::string& event) const {
  for (const auto& [name, filter] : opts_.tracepoint_filters) {
    if (name != event) continue;
    if (::ioctl(fd, kPerfEventIocSetFilter, filter.c_str()) != 0)
      throw_usage("cannot set filter '{}' on event '{}': {}", filter, event, errno_text(errno));
  }
}

// The extensions see what is recorded and the first attr (its sample_id
// layout and clock); their attrs and rings join the recording's.
void Recorder::prepare_extensions() {
  RecordTarget target;
  // With -p/-t, a command only times the recording: the extensions see the
  // targets alone, as when there is no command.
  target.pids = plan_.workload ? std::vector<pid_t>{workload_.pid()} : opts_.pids;
  target.tids = opts_.tids;
  target.system_wide = plan_.system_wide;
  target.cpus = cpus_;
  if (!plan_.tasks) target.command_path = command_path_;
  target.workload_pid = opts_.command.empty() || plan_.tasks ? -1 : workload_.pid();
  for (RecordExtension* ext : extensions_) {
    ext->prepare(target, events_.front().attr);
    for (auto& d : ext->attrs()) {
      verbose("event {}: {} id(s), written by an extension", d.name, d.ids.size());
      ext_descs_.push_back(std::move(d));
    }
    for (int fd : ext->ring_fds()) {
      rings_.push_back(Ring{std::make_unique<RingBuffer>(fd, opts_.mmap_pages), ext});
      verbose("mapped an extension's ring buffer (fd {})", fd);
    }
  }
  // The first event's fds, opened CPU by CPU, target by target.
  const OpenEvent& first = events_.front();
  std::vector<SamplingEvent> sampling;
  size_t per_cpu = cpus_.empty() ? 1 : std::max<size_t>(1, first.fds.size() / cpus_.size());
  for (size_t i = 0; i < first.fds.size(); ++i)
    sampling.push_back({first.fds[i].get(), first.ids[i], i / per_cpu < cpus_.size() ? cpus_[i / per_cpu] : -1});
  for (RecordExtension* ext : extensions_) ext->on_sampling_events(sampling);
}

void Recorder::enable() {
  if (plan_.workload) return;  // enable_on_exec does it at the exec
  for (auto& ev : events_)
    for (auto& fd : ev.fds) ::ioctl(fd.get(), kPerfEventIocEnable, 0);
}

// Stops the kernel writing before anything else: under overload (-a -F max
// on busy CPUs) the sampling interrupts themselves starve the recorder and
// the workload, so draining or waiting first could take minutes.
void Recorder::stop_sampling() {
  for (auto& ev : events_)
    for (auto& fd : ev.fds) ::ioctl(fd.get(), kPerfEventIocDisable, 0);
}

}  // namespace sonde::record
