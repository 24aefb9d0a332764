#include "record/recorder.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "format/perf_abi.h"
#include "format/records.h"
#include "format/stream_writer.h"
#include "format/user_regs.h"
#include "record/build_id_patcher.h"
#include "record/cpu_list.h"
#include "record/drain_reader.h"
#include "record/event_spec.h"
#include "record/header_writer.h"
#include "record/kernel_maps.h"
#include "record/live_processes.h"
#include "kernel/perf_event.h"
#include "record/proc_synthesizer.h"
#include "record/record_queue.h"
#include "record/ring_buffer.h"
#include "record/thread_spec.h"
#include "record/tracing_data.h"
#include "record/workload.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/fields.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

constexpr uint64_t kDefaultFreq = 4000;
constexpr uint64_t kMaxFreq = 1000000;
// A pass over the buffers at least this often, so a kill -9 loses little
// even when the buffers never reach their wakeup watermark.
constexpr int kPollTimeoutMs = 100;

bool process_exists(pid_t pid) {
  struct stat st{};
  return pid > 0 && ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

pid_t tgid_of(pid_t tid) {
  auto s = read_small_file("/proc/" + std::to_string(tid) + "/status");
  if (!s) return tid;
  auto at = s->find("\nTgid:");
  if (at == std::string::npos) return tid;
  std::string_view rest = std::string_view(*s).substr(at + 6);
  rest = rest.substr(0, rest.find('\n'));
  auto tgid = parse_int<pid_t>(next_field(rest), 1);
  return tgid ? tgid.value : tid;
}

// Blocks SIGINT/SIGTERM/SIGCHLD (and SIGUSR2 with --switch-output) for the
// recording and delivers them through a signalfd in the poll set: no
// handler, no race between a check and poll(). With `own_signals` false
// (RecordOptions::stop_fd: the caller owns them) only SIGPIPE is set.
class SignalGuard {
 public:
  SignalGuard(bool own_signals, bool switch_signal) {
    // A closed reader of `-o -` must turn into a write error, not a silent death.
    old_pipe_ = ::signal(SIGPIPE, SIG_IGN);
    if (!own_signals) {
      ::pthread_sigmask(SIG_BLOCK, nullptr, &old_);
      return;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    if (switch_signal) sigaddset(&set, SIGUSR2);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_) {
      int e = errno;
      restore();
      throw_runtime("cannot create a signalfd: {}", errno_text(e));
    }
  }
  ~SignalGuard() {
    // Signals that came during the recording were the recording's to act on
    // (a second SIGTERM, as `timeout` sends to its whole process group):
    // left pending, the restored mask would deliver them at once and end
    // the process before its summary line.
    if (fd_)
      while (take() != 0) {
      }
    restore();
  }
  int fd() const { return fd_.get(); }  // -1 without own_signals
  const sigset_t& old_mask() const { return old_; }
  // The next pending signal, 0 if none.
  int take() {
    signalfd_siginfo si{};
    if (::read(fd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) return static_cast<int>(si.ssi_signo);
    return 0;
  }

 private:
  void restore() {
    ::signal(SIGPIPE, old_pipe_);
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

  sigset_t old_{};
  UniqueFd fd_;
  sighandler_t old_pipe_ = SIG_DFL;
};

// Calls stop() on every extension on every way out, including exceptions.
struct ExtensionStopper {
  std::vector<RecordExtension*>& exts;
  ~ExtensionStopper() {
    for (auto& e : exts) {
      try {
        e->stop();
      } catch (...) {
        // stop() must not mask the original error
      }
    }
  }
};

struct OpenEvent {
  EventSpec spec;
  perf_event_attr attr{};
  std::vector<UniqueFd> fds;
  std::vector<uint64_t> ids;
};

struct Ring {
  std::unique_ptr<RingBuffer> buffer;
  RecordExtension* extension = nullptr;  // non-null for an extension's buffer
  int cpu = -1;                          // a kernel ring's CPU
};

// One output stream and what feeds it: the rings one thread drains into
// its queue, and the writer thread that empties the queue into `out`.
// Without --threads there is one, drained by the recorder's own thread.
// With --threads, drains_[0] is DIR/data (synthesized records, extension
// rings and produce()) and drains_[i] is DIR/data.(i-1), drained by a
// thread of its own.
struct Drain {
  std::string path;                      // the file ("" for a pipe or a caller's fd)
  std::vector<size_t> rings;             // indices into Recorder::rings_
  std::vector<int> affinity;             // --threads masks' /AFFINITY
  std::unique_ptr<format::StreamWriter> out;
  std::unique_ptr<RecordQueue> queue;
  std::unique_ptr<DrainReader> reader;
  std::thread drainer;                   // --threads: the thread that fills `queue`
  std::thread writer;
  std::exception_ptr error;              // the writer's or the drainer's, rethrown by run()
  std::vector<uint8_t> scratch = std::vector<uint8_t>(65536);
  bool wrote_in_round = false;
  bool main = false;                     // runs extensions' produce() and --switch-output
  Drain* into = this;                    // whose stream gets the records (--threads -o -: the main one)
  uint64_t samples = 0, lost = 0, dropped_records = 0;
  RecordWrite produce_write;
};

class Recorder {
 public:
  explicit Recorder(const RecordOptions& o) : opts_(o) {
    for (const auto& e : o.extensions) extensions_.push_back(e.get());
  }
  RecordSummary run();

 private:
  void validate();
  void validate_switch_output();
  perf_event_attr make_attr(const EventSpec& e, bool tracking) const;
  void open_events();
  void set_tracepoint_filter(int fd, const std::string& event) const;
  void validate_threads();
  void raise_fd_limit();
  void plan_drains();
  void open_output();
  void open_directory();
  void write_preamble(Drain& d);
  void write_metadata(const SynthContext& ctx, Drain& d);
  void synthesize_tasks(const SynthContext& ctx);
  bool switch_due() const;
  bool caught_up(Drain& d);
  void switch_output();
  void finish_file();
  void enable();
  void start_threads();
  void stop_threads();
  void write_loop(Drain& d);
  void merge_loop();
  bool merge_one_pass(std::vector<uint64_t>& passed, size_t& finished);
  void end_round(Drain& d, bool final);
  void drainer_loop(Drain& d);
  void stop_drainers();
  void loop();
  int stop_fd() const;
  bool take_signals();
  template <typename... Args>
  void verbose(fmt::format_string<Args...> f, Args&&... args) const;
  void stop_sampling();
  void end_workload();
  void drain_pass(Drain& d, bool final = false);
  void handle(Drain& d, std::span<const uint8_t> rec, RecordExtension* ext);
  void write_kernel_record(Drain& d, std::span<const uint8_t> rec);
  void write_lost(Drain& d, std::span<const uint8_t> rec);
  Drain& main_drain() { return *drains_.front(); }
  void tell_exec_mapping(std::span<const uint8_t> mmap2);
  bool targets_alive() const;
  // The forked command is what is recorded (not -p/-t/-a with a command,
  // which only sets how long the recording lasts).
  bool records_workload() const { return !opts_.command.empty() && !system_wide_ && !tasks_; }

  const RecordOptions& opts_;  // as the caller gave them: resolved values live below
  // The effective -F (after -F max and the kernel's limit); unused with -c.
  uint64_t freq_ = kDefaultFreq;
  // Every extension in the order they are called: the caller's (which stay
  // the caller's), then those the factory made, owned here. Declared before
  // stopper_ so that they are still alive when it stops them.
  std::vector<RecordExtension*> extensions_;
  std::vector<std::unique_ptr<RecordExtension>> made_extensions_;
  ExtensionStopper stopper_{extensions_};
  ParsedEvents parsed_;
  std::vector<OpenEvent> events_;
  std::vector<format::EventDesc> ext_descs_;
  std::vector<int> cpus_;
  std::vector<pid_t> task_targets_;  // pids passed to perf_event_open (-1 for system-wide)
  bool system_wide_ = false;
  bool tasks_ = false;  // -p/-t
  bool kernel_build_ids_ = false;
  bool mono_clock_ = false;  // records timed on CLOCK_MONOTONIC
  uint64_t sample_type_ = 0;
  std::string command_path_;
  std::unique_ptr<SignalGuard> signals_;
  Workload workload_;
  // --switch-output: the files done so far, what starts each new one, and
  // when the current one was started (steady clock) and its preamble's size.
  std::unique_ptr<RotatedFiles> rotated_;
  LiveProcesses live_;
  std::atomic<bool> switch_requested_{false};  // SIGUSR2 (taken by the drain loop, acted on by the writer)
  bool first_file_ = true;
  std::chrono::steady_clock::time_point file_started_;
  std::optional<std::chrono::steady_clock::time_point> switch_wait_started_;  // a due switch waiting for caught_up()
  uint64_t preamble_bytes_ = 0;
  std::vector<uint8_t> tracing_blob_;  // built once, written into every file
  std::unique_ptr<format::RecordCompressor> compressor_;  // -z, until the preamble is written
  std::vector<Ring> rings_;
  BuildIdPatcher build_ids_;
  // Draining decoupled from writing: a DrainReader fills each drain's
  // queue, its writer thread (write_loop) empties it into its stream.
  // Writers share build_ids_, the extensions' callbacks and live_ under
  // shared_mu_.
  std::vector<std::unique_ptr<Drain>> drains_;
  std::vector<DrainThreadSpec> thread_specs_;  // --threads
  bool directory_ = false;                     // --threads: -o is a directory of streams
  bool merged_ = false;                        // --threads -o -: every drain into one ordered stream
  std::mutex shared_mu_;
  std::atomic<bool> abandon_{false};   // the recording failed: writers stop without their final marker
  std::atomic<bool> stop_drainers_{false};
  bool threads_stopped_ = false;       // stop_threads() ran: counts are in sum_
  UniqueFd stop_event_;                // --threads: wakes the drain threads to stop
  RecordSummary sum_;
};

void Recorder::validate() {
  if (opts_.freq && opts_.period) throw_usage("-F and -c cannot be used together");
  if (opts_.freq && (*opts_.freq == 0 || *opts_.freq > kMaxFreq))
    throw_usage("invalid -F {}: the frequency must be 1..{} Hz", *opts_.freq, kMaxFreq);
  if (opts_.period && *opts_.period == 0) throw_usage("invalid -c 0: the period must be at least 1");
  if (opts_.freq_max && (opts_.freq || opts_.period)) throw_usage("-F max and -F/-c cannot be used together");
  if (!opts_.period) {
    // The kernel rejects a frequency above this limit with a bare EINVAL, and
    // lowers the limit by itself when sampling interrupts take too long: like
    // perf, use the limit and say so.
    auto max_text = read_first_line("/proc/sys/kernel/perf_event_max_sample_rate");
    uint64_t max = 0;
    if (max_text) parse_uint_into(*max_text, max);
    if (opts_.freq_max) freq_ = max > 0 ? std::min(max, kMaxFreq) : kDefaultFreq;  // as perf's -F max
    else freq_ = opts_.freq.value_or(kDefaultFreq);
    if (max > 0 && freq_ > max) {
      std::fprintf(stderr, "sonde record: warning: -F %llu lowered to %llu (kernel.perf_event_max_sample_rate)\n",
                   static_cast<unsigned long long>(freq_), static_cast<unsigned long long>(max));
      freq_ = max;
    }
  }
  if (opts_.mmap_pages == 0 || (opts_.mmap_pages & (opts_.mmap_pages - 1)) != 0 || opts_.mmap_pages > (1u << 20))
    throw_usage("invalid -m {}: the number of pages must be a power of two", opts_.mmap_pages);
  if (opts_.user_buffer_bytes < RecordQueue::kMinCapacity)
    throw_usage("invalid --user-buffer-size {}: at least {} bytes", opts_.user_buffer_bytes, RecordQueue::kMinCapacity);
  if (opts_.compression_level < 0 || opts_.compression_level > 22)
    throw_usage("invalid compression level {}: zstd levels are 1 to 22", opts_.compression_level);
  // Made before the output exists: a libzstd that is missing or refuses the
  // level fails the command without leaving a file behind.
  if (opts_.compression_level > 0) compressor_ = std::make_unique<format::RecordCompressor>(opts_.compression_level);
  tasks_ = !opts_.pids.empty() || !opts_.tids.empty();
  system_wide_ = opts_.system_wide || !opts_.cpus.empty();
  if (tasks_ && system_wide_) throw_usage("-p/-t cannot be combined with -a/-C");
  if (!tasks_ && !system_wide_ && opts_.command.empty())
    throw_usage("nothing to record: give a command after --, or -p, -t or -a");
  if (opts_.output_fd < 0 && opts_.output.empty()) throw_usage("empty output path");
  if (opts_.all_user && opts_.all_kernel) throw_usage("--all-user and --all-kernel cannot be used together");
  validate_switch_output();
  validate_threads();
  if (opts_.lbr_callchain) {
    // LBR call stacks are a hardware feature (Intel's last branch records).
    if (!kernel::has_cpu_pmu()) throw_runtime("--call-graph lbr is not supported on this machine (no hardware PMU)");
    throw_runtime("--call-graph lbr is not supported by sonde (fp, or dwarf[,SIZE])");
  }

  parsed_ = parse_events(opts_.events);
  if (!parsed_.extension_specs.empty()) {
    if (!opts_.extension_factory)
      throw_usage("unknown event '{}' (no event source for '%' events in this build)", parsed_.extension_specs[0]);
    for (auto& e : opts_.extension_factory(parsed_.extension_specs)) {
      extensions_.push_back(e.get());
      made_extensions_.push_back(std::move(e));
    }
  }
  if (parsed_.events.empty()) {
    // Only extension events: a dummy event still carries the task/mmap tracking.
    EventSpec d;
    d.name = "dummy";
    d.type = PERF_TYPE_SOFTWARE;
    d.config = PERF_COUNT_SW_DUMMY;
    parsed_.events.push_back(d);
  }

  cpus_ = opts_.cpus.empty() ? online_cpus() : opts_.cpus;
  if (opts_.threads) thread_specs_ = parse_thread_spec(opts_.threads_spec, cpus_);
  for (pid_t p : opts_.pids) {
    if (!process_exists(p)) throw_runtime("process {} does not exist", p);
    for (pid_t t : list_threads(p)) task_targets_.push_back(t);
  }
  for (pid_t t : opts_.tids) {
    if (!process_exists(t)) throw_runtime("thread {} does not exist", t);
    task_targets_.push_back(t);
  }
  if (!opts_.command.empty()) command_path_ = resolve_command(opts_.command[0]);

  switch (opts_.build_id_mode) {
    // Auto is the recorder's own reading: on a kernel that leaks the
    // build-id misc bit (6.18 here), an attr with build_id makes every
    // other session recording the same tasks without it (perf 6.1, which
    // then crashes on the record) receive inode-form MMAP2s marked as
    // build-id ones. docs/record.md, "Build-ids".
    case BuildIdMode::Auto:
    case BuildIdMode::Recorder: kernel_build_ids_ = false; break;
    case BuildIdMode::Kernel:
      if (!kernel::kernel_supports_build_id())
        throw_runtime("--buildid-mode=kernel: this kernel does not support build-ids in MMAP2 (needs Linux 5.12)");
      kernel_build_ids_ = true;
      break;
    case BuildIdMode::None:
      kernel_build_ids_ = false;
      build_ids_.disable();
      break;
  }
  build_ids_.kernel_writes_build_ids(kernel_build_ids_);
  // Timestamps on CLOCK_MONOTONIC, as `perf record -k mono`: the clock JITs
  // write their jitdump records with, so a reader can tell which function
  // was at an address at a sample's time (docs/format.md).
  mono_clock_ = kernel::kernel_supports_clockid(CLOCK_MONOTONIC);
  // The merge compares the drains' pass times with record times.
  if (merged_ && !mono_clock_ && !opts_.monotonic_clock)
    throw_runtime("--threads -o - needs events timed on CLOCK_MONOTONIC (use_clockid, Linux 4.1)");
}

void Recorder::validate_switch_output() {
  const SwitchOutput& so = opts_.switch_output;
  if (!so.enabled) {
    if (so.max_files) throw_usage("--switch-max-files needs --switch-output");
    return;
  }
  // A pipe cannot be renamed or started again: perf refuses it too.
  if (opts_.output == "-") throw_usage("--switch-output cannot be used with -o - (a pipe has no files to switch)");
  rotated_ = std::make_unique<RotatedFiles>(opts_.output, so.max_files);
}

// --threads -o DIR: DIR is created (or, when it is a directory already,
// its earlier streams are replaced) only after every check passed.
void Recorder::validate_threads() {
  if (!opts_.threads) return;
  directory_ = true;
  if (opts_.output_fd >= 0) throw_usage("--threads writes a directory of streams: not with an output fd");
  if (opts_.switch_output.enabled) throw_usage("--threads cannot be used with --switch-output");
  if (opts_.output == "-") {
    directory_ = false;
    merged_ = true;
    return;
  }
  struct stat st{};
  if (::stat(opts_.output.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw_usage("--threads writes a directory: '{}' exists and is not a directory", opts_.output);
    return;
  }
  std::string parent = opts_.output.substr(0, opts_.output.find_last_of('/') + 1);
  if (parent.empty()) parent = ".";
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw_usage("--threads writes a directory: '{}' cannot be one ('{}' is not a directory)", opts_.output, parent);
}

// Every fd the recording holds at once is an event fd (events x CPUs x
// tasks) or an output; perf needs several per CPU and fails with "Too many
// open files" on large machines. The soft limit is raised to the hard one
// at start; past that, one line says what is needed, before any output.
void Recorder::raise_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  size_t tasks = system_wide_ ? 1 : records_workload() ? 1 : std::max<size_t>(1, task_targets_.size());
  size_t events = parsed_.events.size();
  size_t needed = events * cpus_.size() * tasks + (thread_specs_.size() + 1) + 2 * cpus_.size() * extensions_.size() + 32;
  if (lim.rlim_cur != RLIM_INFINITY && needed > lim.rlim_cur)
    throw_runtime("the recording needs about {} file descriptors but RLIMIT_NOFILE is {} (raise the hard limit: "
                  "ulimit -Hn)", needed, static_cast<unsigned long long>(lim.rlim_cur));
}

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
    a.sample_freq = freq_;
  }
  if (opts_.user_stack_bytes) {
    // perf's --call-graph dwarf: the kernel walks only the kernel part; the
    // user part is unwound later from these registers and stack bytes.
    a.sample_regs_user = format::kUnwindRegsX86_64;
    a.sample_stack_user = opts_.user_stack_bytes;
    a.exclude_callchain_user = 1;
  }
  if (opts_.monotonic_clock) {
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
  }
  a.disabled = 1;
  a.inherit = opts_.inherit ? 1 : 0;
  a.enable_on_exec = records_workload() ? 1 : 0;
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
  if (mono_clock_) {
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
    a.build_id = kernel_build_ids_ ? 1 : 0;
    // With --call-graph dwarf, the data mappings too, as perf records them:
    // perf's unwinder reads a library's .eh_frame_hdr (in its read-only,
    // non-executable segment) through them, and stops at the first frame
    // without them.
    a.mmap_data = opts_.user_stack_bytes ? 1 : 0;
  }
  return a;
}

// --filter: the kernel evaluates it before the sample reaches the buffer.
void Recorder::set_tracepoint_filter(int fd, const std::string& event) const {
  for (const auto& [name, filter] : opts_.tracepoint_filters) {
    if (name != event) continue;
    if (::ioctl(fd, kPerfEventIocSetFilter, filter.c_str()) != 0)
      throw_usage("cannot set filter '{}' on event '{}': {}", filter, event, errno_text(errno));
  }
}

void Recorder::open_events() {
  sample_type_ = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                 PERF_SAMPLE_PERIOD;
  if (opts_.callchain) sample_type_ |= PERF_SAMPLE_CALLCHAIN;
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
  std::vector<pid_t> targets = system_wide_        ? std::vector<pid_t>{-1}
                               : records_workload() ? std::vector<pid_t>{workload_.pid()}
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

  RecordTarget target;
  // With -p/-t, a command only times the recording: the extensions see the
  // targets alone, as when there is no command.
  target.pids = records_workload() ? std::vector<pid_t>{workload_.pid()} : opts_.pids;
  target.tids = opts_.tids;
  target.system_wide = system_wide_;
  target.cpus = cpus_;
  if (!tasks_) target.command_path = command_path_;
  target.workload_pid = opts_.command.empty() || tasks_ ? -1 : workload_.pid();
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
}

// The drains and their rings: one drain for everything, or with --threads
// the main one (DIR/data: extension rings) and one per thread spec (its
// CPUs' kernel rings).
void Recorder::plan_drains() {
  auto main = std::make_unique<Drain>();
  main->main = true;
  drains_.push_back(std::move(main));
  for (const auto& spec : thread_specs_) {
    auto d = std::make_unique<Drain>();
    d->affinity = spec.affinity;
    if (merged_) d->into = drains_.front().get();
    drains_.push_back(std::move(d));
  }
  for (size_t i = 0; i < rings_.size(); ++i) {
    size_t owner = 0;
    for (size_t t = 0; t < thread_specs_.size() && !rings_[i].extension; ++t) {
      const auto& cpus = thread_specs_[t].cpus;
      if (std::find(cpus.begin(), cpus.end(), rings_[i].cpu) != cpus.end()) owner = t + 1;
    }
    drains_[owner]->rings.push_back(i);
  }
}

void Recorder::open_output() {
  Drain& d = main_drain();
  if (directory_) return open_directory();
  if (opts_.output_fd >= 0) {
    int fd = ::fcntl(opts_.output_fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) throw_runtime("cannot write the recording: {}", errno_text(errno));
    d.out = std::make_unique<format::StreamWriter>(fd);
    return;
  }
  if (opts_.output == "-") {
    d.out = std::make_unique<format::StreamWriter>(STDOUT_FILENO);
    return;
  }
  int fd = ::open(opts_.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_runtime("cannot create '{}': {}", opts_.output, errno_text(errno));
  d.out = std::make_unique<format::StreamWriter>(fd);
  d.path = opts_.output;
  verbose("writing {}", opts_.output);
}

// DIR/data and every DIR/data.N (N decimal), nothing else.
void remove_streams(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    bool numbered = name.size() > 5 && name.substr(0, 5) == "data." &&
                    name.find_first_not_of("0123456789", 5) == std::string_view::npos;
    if (name == "data" || numbered) ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

// --threads: DIR/data and DIR/data.N (docs/format.md). An earlier
// recording's streams in DIR are removed first (a stale data.5 beside a
// 2-thread recording would be read as part of it); other files stay. If
// any stream cannot be created, those made are removed again.
void Recorder::open_directory() {
  const std::string& dir = opts_.output;
  bool made = ::mkdir(dir.c_str(), 0755) == 0;
  if (!made && errno != EEXIST) throw_runtime("cannot create the directory '{}': {}", dir, errno_text(errno));
  if (!made) remove_streams(dir);
  for (size_t i = 0; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    d.path = dir + (i == 0 ? std::string("/data") : "/data." + std::to_string(i - 1));
    int fd = ::open(d.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      int err = errno;
      for (size_t j = 0; j < i; ++j) {
        drains_[j]->out.reset();
        ::unlink(drains_[j]->path.c_str());
      }
      if (made) ::rmdir(dir.c_str());
      if (err == EMFILE || err == ENFILE)
        throw_runtime("cannot create '{}': too many open files (RLIMIT_NOFILE; --threads needs {} streams)", d.path,
                      drains_.size());
      throw_runtime("cannot create '{}': {}", d.path, errno_text(err));
    }
    d.out = std::make_unique<format::StreamWriter>(fd);
    verbose("writing {} ({} ring buffers)", d.path, d.rings.size());
  }
}

template <typename... Args>
void Recorder::verbose(fmt::format_string<Args...> f, Args&&... args) const {
  if (!opts_.verbose) return;
  std::string line = "sonde record: " + fmt::format(f, std::forward<Args>(args)...) + "\n";
  std::fputs(line.c_str(), stderr);
}

// Everything a stream holds before the kernel's records. With
// --switch-output, every file starts with it: each is read on its own.
// With --threads every stream has the attrs, features and names; only the
// main one (DIR/data) the synthesized records.
void Recorder::write_preamble(Drain& d) {
  // Each file is one zstd stream of its own (its reader starts decoding at
  // its first COMPRESSED record); the first file's compressor was made in
  // validate(), before any output existed.
  if (!compressor_ && opts_.compression_level > 0)
    compressor_ = std::make_unique<format::RecordCompressor>(opts_.compression_level);
  SynthContext ctx{*d.out, sample_type_, events_.front().ids.front(), build_ids_, opts_.user_stack_bytes != 0};
  write_metadata(ctx, d);
  if (d.main) synthesize_tasks(ctx);
  d.out->write_finished_init();
  d.out->flush();
  if (d.main) {
    preamble_bytes_ = d.out->bytes_written();
    file_started_ = std::chrono::steady_clock::now();
  }
  // Like perf -z: what is drained from the kernel is compressed, the
  // preamble above stays plain.
  if (compressor_) d.out->compress_from_here(std::move(compressor_));
}

// Attrs, features, tracing data, the kernel's maps and the event names.
void Recorder::write_metadata(const SynthContext& ctx, Drain& d) {
  HeaderInfo info;
  for (auto& ev : events_) info.events.push_back(format::EventDesc{ev.attr, ev.spec.name, ev.ids});
  for (auto& d : ext_descs_) info.events.push_back(d);
  info.cmdline = opts_.cmdline;
  info.version = opts_.version;
  if (mono_clock_) info.clockid = CLOCK_MONOTONIC;
  if (opts_.compression_level > 0) {
    info.compression_level = opts_.compression_level;
    size_t ring = opts_.mmap_pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    info.compressed_record_max = static_cast<uint32_t>(std::max(format::RecordCompressor::kSliceBytes, ring));
  }
  write_header(*d.out, info);

  // Tracing metadata after all attrs (perf binds formats to attrs when it
  // reads it). Read from tracefs once; every switched file gets the same.
  if (first_file_ && d.main) {
    std::vector<Tracepoint> tps;
    for (auto& ev : events_)
      if (ev.spec.tracepoint) tps.push_back(ev.spec.tp);
    for (auto& d : ext_descs_) {
      Tracepoint tp;
      if (d.attr.type == PERF_TYPE_TRACEPOINT && find_tracepoint_by_id(d.attr.config, tp)) tps.push_back(tp);
    }
    if (!tps.empty()) tracing_blob_ = build_tracing_data(tps);
  }
  if (!tracing_blob_.empty()) d.out->write_tracing_data(tracing_blob_);

  if (d.main) synthesize_kernel_maps(ctx);
  write_event_names(*d.out, info.events);
}

// The tasks that exist before the file's first kernel record. The first
// file: every process with -a/-C, the -p/-t targets, or the workload's
// COMM (its exec brings the rest). A switched file: every process with
// -a/-C, else every recorded process alive now (targets, the workload and
// their children), read from /proc as they are at the switch.
void Recorder::synthesize_tasks(const SynthContext& ctx) {
  if (system_wide_) return synthesize_all_processes(ctx);
  if (!first_file_) {
    for (pid_t p : live_.pids()) synthesize_process(ctx, p);
    return;
  }
  if (records_workload()) {
    std::string base = opts_.command[0].substr(opts_.command[0].rfind('/') + 1);
    synthesize_comm(ctx, workload_.pid(), workload_.pid(), base.substr(0, 15));
    live_.add(workload_.pid());
    return;
  }
  std::vector<pid_t> done;
  for (pid_t p : opts_.pids) {
    synthesize_process(ctx, p);
    done.push_back(p);
  }
  for (pid_t t : opts_.tids) {
    pid_t pid = tgid_of(t);
    if (std::find(done.begin(), done.end(), pid) != done.end()) continue;
    synthesize_process(ctx, pid);
    done.push_back(pid);
  }
  for (pid_t p : done) live_.add(p);
}

void Recorder::enable() {
  if (records_workload()) return;  // enable_on_exec does it at the exec
  for (auto& ev : events_)
    for (auto& fd : ev.fds) ::ioctl(fd.get(), kPerfEventIocEnable, 0);
}

void Recorder::write_kernel_record(Drain& d, std::span<const uint8_t> rec) {
  d.into->out->write_record(rec.data(), rec.size());
  d.into->wrote_in_round = true;
}

// On a drain's writer thread. What is shared between writers (build-ids,
// the extensions' callbacks, live_) is taken under shared_mu_: only for
// MMAP2, FORK and EXIT, never per sample.
void Recorder::handle(Drain& d, std::span<const uint8_t> rec, RecordExtension* ext) {
  format::RecordHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  switch (h.type) {
    case format::kSample:
      if (ext) {
        std::memcpy(d.scratch.data(), rec.data(), rec.size());
        std::span<uint8_t> w(d.scratch.data(), rec.size());
        if (!ext->rewrite_sample(w)) return;
        ++d.samples;
        write_kernel_record(d, w);
        return;
      }
      ++d.samples;
      write_kernel_record(d, rec);
      return;
    case format::kMmap2: {
      auto m = format::Mmap2View::parse(rec);
      if (!m) return write_kernel_record(d, rec);
      std::memcpy(d.scratch.data(), rec.data(), rec.size());
      std::span<uint8_t> w(d.scratch.data(), rec.size());
      std::lock_guard lock(shared_mu_);
      build_ids_.patch(w);  // also clears a build-id bit the kernel leaked
      write_kernel_record(d, w);
      if (!extensions_.empty() && (m->prot & PROT_EXEC)) tell_exec_mapping(w);
      return;
    }
    case format::kLost:
      write_lost(d, rec);
      return;
    case format::kLostSamples:
      if (auto l = format::LostSamplesView::parse(rec)) d.lost += l->lost;
      write_kernel_record(d, rec);
      return;
    case format::kFork:
    case format::kExit: {
      write_kernel_record(d, rec);
      auto f = extensions_.empty() && !rotated_ ? std::nullopt : format::ForkExitView::parse(rec);
      if (!f) return;
      std::lock_guard lock(shared_mu_);
      if (rotated_ && h.type == format::kFork) live_.on_fork(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->ppid));
      if (rotated_ && h.type == format::kExit) live_.on_exit(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->tid));
      for (RecordExtension* e : extensions_) {
        if (h.type == format::kFork && f->pid != f->ppid) e->on_fork(static_cast<pid_t>(f->pid), static_cast<pid_t>(f->ppid));
        if (h.type == format::kExit && f->pid == f->tid) e->on_exit(static_cast<pid_t>(f->pid));
      }
      return;
    }
    default:
      // perf 6.1 aborts on kernel record types it does not know.
      if (h.type == 0 || h.type > format::kMaxKernelType) {
        ++d.dropped_records;
        return;
      }
      write_kernel_record(d, rec);
  }
}

// perf counts lost samples from LOST_SAMPLES records ("Total Lost Samples"),
// which perf record writes at the end from each event's PERF_FORMAT_LOST
// count; the kernel's LOST records, the same losses, only make it warn of
// "lost chunks". So each LOST is followed by a LOST_SAMPLES of the same count
// and sample_id (written as it happens, so a killed recording keeps it), and
// readers count one or the other, never both (analysis::RecordingWalker).
void Recorder::write_lost(Drain& d, std::span<const uint8_t> rec) {
  write_kernel_record(d, rec);
  auto l = format::LostView::parse(rec);
  if (!l) return;
  d.lost += l->lost;
  uint8_t buf[256];
  const auto sample_id = rec.subspan(sizeof(format::Lost));
  if (size_t n = format::build_lost_samples(buf, l->lost, sample_id)) write_kernel_record(d, {buf, n});
}

// An executable mapping (its MMAP2 as written: with the build id patched
// in when one was found) for the extensions, which keep or probe its object.
void Recorder::tell_exec_mapping(std::span<const uint8_t> mmap2) {
  auto m = format::Mmap2View::parse(mmap2);
  if (!m) return;
  std::string path(m->filename);
  BuildId id;
  if (m->has_build_id()) id = BuildId::from_bytes(m->build_id);
  for (RecordExtension* e : extensions_) e->on_exec_mapping(static_cast<pid_t>(m->pid), path, id);
}

// One pass over a drain's ring buffers into its queue, ended by a round
// marker (its writer writes the records and the FINISHED_ROUND).
void Recorder::drain_pass(Drain& d, bool final) {
  d.reader->begin_pass();
  for (size_t i : d.rings) d.reader->drain(*rings_[i].buffer, static_cast<uint16_t>(i));
  d.reader->end_pass(final);
}

void Recorder::start_threads() {
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  uint64_t regs = opts_.user_stack_bytes ? format::kUnwindRegsX86_64 : 0;
  for (auto& dp : drains_) {
    Drain& d = *dp;
    // The queue holds at least what its rings can: a full set of rings
    // never has to wait for the writer.
    size_t rings = d.rings.size() * opts_.mmap_pages * page;
    d.queue = std::make_unique<RecordQueue>(std::max(opts_.user_buffer_bytes, rings));
    d.reader = std::make_unique<DrainReader>(*d.queue, sample_type_, regs);
    d.produce_write = [this, &d](std::span<const uint8_t> rec) { write_kernel_record(d, rec); };
  }
  // Every queue exists before any writer starts (the merge reads them all).
  for (auto& dp : drains_) {
    Drain& d = *dp;
    if (merged_ && d.main) d.writer = std::thread([this] { merge_loop(); });
    else if (!merged_) d.writer = std::thread([this, &d] { write_loop(d); });
  }
  if (drains_.size() == 1) return;
  stop_event_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_event_) throw_runtime("cannot create an eventfd: {}", errno_text(errno));
  for (size_t i = 1; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    d.drainer = std::thread([this, &d] { drainer_loop(d); });
    if (!d.affinity.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int c : d.affinity) CPU_SET(c, &set);
      ::pthread_setaffinity_np(d.drainer.native_handle(), sizeof set, &set);
    }
  }
}

// A drain thread only copies, and is late only when it is not scheduled:
// on busy CPUs under -F max the sampling interrupts and the workload
// starve it, and the kernel drops records its rings cannot hold. So it
// asks for a higher priority (nice -10; refused without CAP_SYS_NICE, then
// it runs as before). The writer threads keep the normal priority.
void raise_drain_priority() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), -10);
}

// The recorder's own thread drains too: its priority is raised for the
// loop and given back after (it may be the caller's thread: sonde top).
struct DrainPriority {
  int old;
  DrainPriority() : old(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()))) { raise_drain_priority(); }
  ~DrainPriority() { ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), old); }
};

// --threads: a drain thread polls its own rings (and the stop event) and
// drains them until told to stop, then makes its final pass.
void Recorder::drainer_loop(Drain& d) {
  raise_drain_priority();
  try {
    std::vector<pollfd> pfds;
    pfds.push_back({stop_event_.get(), POLLIN, 0});
    for (size_t i : d.rings) pfds.push_back({rings_[i].buffer->fd(), POLLIN, 0});
    while (!stop_drainers_.load()) {
      int n = ::poll(pfds.data(), pfds.size(), kPollTimeoutMs);
      if (n < 0 && errno != EINTR) throw_runtime("poll failed: {}", errno_text(errno));
      for (size_t i = 1; n > 0 && i < pfds.size(); ++i)
        if (pfds[i].revents & (POLLHUP | POLLERR)) pfds[i].fd = -1;
      if (stop_drainers_.load() || d.queue->closed()) break;
      drain_pass(d);
    }
    drain_pass(d, true);
  } catch (...) {
    d.error = std::current_exception();
    d.queue->close();
  }
}

void Recorder::stop_drainers() {
  stop_drainers_ = true;
  if (stop_event_) {
    uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(stop_event_.get(), &one, sizeof one);
  }
  for (auto& d : drains_)
    if (d->drainer.joinable()) d->drainer.join();
}

// Joins every thread. On the normal way out the final markers are in the
// queues and each writer finishes what precedes its marker; otherwise
// (an exception) they stop at once.
void Recorder::stop_threads() {
  if (threads_stopped_) return;
  threads_stopped_ = true;
  if (std::uncaught_exceptions() > 0) {
    abandon_ = true;
    for (auto& d : drains_)
      if (d->queue) d->queue->close();  // a drain thread waiting for room gives up
  }
  stop_drainers();
  for (auto& dp : drains_) {
    Drain& d = *dp;
    if (d.writer.joinable()) d.writer.join();
    if (!d.reader) continue;
    const DropCounts& c = d.reader->counts();
    sum_.dropped += c.samples_dropped;
    sum_.stacks_cut += c.stacks_cut;
    sum_.stack_bytes_cut += c.stack_bytes_cut;
    sum_.samples += d.samples;
    sum_.lost += d.lost;
    sum_.dropped_records += d.dropped_records;
    d.samples = d.lost = d.dropped_records = 0;
  }
}

// A writer thread: records from its queue into its stream (handle()),
// extension producers and FINISHED_ROUND at each round marker, until the
// final marker. A failure (a closed pipe, a full disk) closes the queue,
// which ends the draining; the error is rethrown on the recorder's thread.
void Recorder::write_loop(Drain& d) {
  try {
    for (;;) {
      const EntryHeader* e = d.queue->front(kPollTimeoutMs);
      if (!e) {
        if (abandon_) return;
        continue;
      }
      const auto* payload = reinterpret_cast<const uint8_t*>(e + 1);
      const bool final = e->kind == EntryKind::kFinal;
      if (e->kind == EntryKind::kRecord) {
        format::RecordHeader h;
        std::memcpy(&h, payload, sizeof h);
        RecordExtension* ext = e->tag == kNoSource ? nullptr : rings_[e->tag].extension;
        handle(d, {payload, std::min<size_t>(h.size, e->size)}, ext);
      } else {
        end_round(d, final);
      }
      const bool round_ended = e->kind != EntryKind::kRecord;
      d.queue->pop();
      if (final) return;
      // Between rounds: every record drained so far is in the finished
      // file, every later one goes to the new file.
      if (round_ended && d.main && switch_due() && caught_up(d)) switch_output();
    }
  } catch (...) {
    d.error = std::current_exception();
    d.queue->close();
  }
}

// --threads -o -: one writer empties every drain's queue into one stream.
// A drain's round marker carries the time its pass began: every record it
// queues later is at least that late. FINISHED_ROUND N is written only when
// every drain has passed (by 1 ms, for the kernel's own delay between
// stamping a record and publishing it) the time FINISHED_ROUND N-1 was
// written at, which is later than any record before it. So nothing after
// FINISHED_ROUND N is older than what came before N-1: the rule perf's
// ordering (and sonde's) relies on.
void Recorder::merge_loop() {
  Drain& main = main_drain();
  std::vector<uint64_t> passed(drains_.size(), 0);
  size_t finished = 0;
  uint64_t last_round_at = 0;
  constexpr uint64_t kMargin = 1000000;  // 1 ms
  try {
    while (finished < drains_.size()) {
      bool any = merge_one_pass(passed, finished);
      uint64_t low = *std::min_element(passed.begin(), passed.end());
      if (main.wrote_in_round && low >= last_round_at + kMargin) {
        main.out->write_finished_round();
        main.out->flush();
        main.wrote_in_round = false;
        timespec ts{};
        ::clock_gettime(CLOCK_MONOTONIC, &ts);
        last_round_at = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
      }
      if (!any) {
        if (abandon_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (main.wrote_in_round) main.out->write_finished_round();
    main.out->flush();
  } catch (...) {
    main.error = std::current_exception();
    for (auto& d : drains_) d->queue->close();
  }
}

// Takes from each queue up to its next marker (no queue starves the
// others); a marker moves that drain's `passed` time, the main drain's
// also runs the extensions' producers. False when every queue was empty.
bool Recorder::merge_one_pass(std::vector<uint64_t>& passed, size_t& finished) {
  bool any = false;
  for (size_t i = 0; i < drains_.size(); ++i) {
    Drain& d = *drains_[i];
    if (passed[i] == UINT64_MAX) continue;
    while (const EntryHeader* e = d.queue->front(0)) {
      any = true;
      const auto* payload = reinterpret_cast<const uint8_t*>(e + 1);
      if (e->kind == EntryKind::kRecord) {
        format::RecordHeader h;
        std::memcpy(&h, payload, sizeof h);
        RecordExtension* ext = e->tag == kNoSource ? nullptr : rings_[e->tag].extension;
        handle(d, {payload, std::min<size_t>(h.size, e->size)}, ext);
        d.queue->pop();
        continue;
      }
      const bool final = e->kind == EntryKind::kFinal;
      if (e->kind == EntryKind::kRound && e->size >= 8) std::memcpy(&passed[i], payload, 8);
      if (d.main) {
        std::lock_guard lock(shared_mu_);
        for (RecordExtension* x : extensions_) d.samples += x->produce(d.produce_write, final);
      }
      if (final) {
        passed[i] = UINT64_MAX;
        ++finished;
      }
      d.queue->pop();
      break;
    }
  }
  return any;
}

// The records extensions make themselves come after the kernel's of the
// round (theirs are stamped now or earlier, never before what the previous
// round held); then the FINISHED_ROUND and a flush.
void Recorder::end_round(Drain& d, bool final) {
  if (d.main) {
    std::lock_guard lock(shared_mu_);
    for (RecordExtension* e : extensions_) d.samples += e->produce(d.produce_write, final);
  }
  if (d.wrote_in_round) {
    d.out->write_finished_round();
    d.out->flush();
    d.wrote_in_round = false;
  }
}

// A switched file starts with the recorded processes read from /proc at
// the switch. Records still queued are older than that: a process that
// exited meanwhile would have samples in the new file and no COMM or MMAP2
// there. So a due switch waits until this writer has emptied its queue
// (the drain thread keeps filling it: under sustained pressure it waits at
// most kSwitchCatchUp, then switches anyway).
bool Recorder::caught_up(Drain& d) {
  constexpr auto kSwitchCatchUp = std::chrono::seconds(1);
  if (!d.queue || d.queue->free_bytes() == d.queue->capacity()) return true;
  const auto now = std::chrono::steady_clock::now();
  if (!switch_wait_started_) switch_wait_started_ = now;
  return now - *switch_wait_started_ >= kSwitchCatchUp;
}

// A zombie still answers kill(pid, 0), so look at its state instead.
bool task_alive(pid_t tid) {
  auto stat = read_small_file("/proc/" + std::to_string(tid) + "/stat");
  if (!stat) return false;
  size_t paren = stat->rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat->size()) return false;
  char state = (*stat)[paren + 2];
  return state != 'Z' && state != 'X';
}

bool Recorder::targets_alive() const {
  if (!tasks_) return true;
  for (pid_t p : opts_.pids)
    if (task_alive(p)) return true;
  for (pid_t t : opts_.tids)
    if (task_alive(t)) return true;
  return false;
}

// The fd whose readability ends the recording: the signalfd, or the
// caller's stop_fd.
int Recorder::stop_fd() const { return opts_.stop_fd >= 0 ? opts_.stop_fd : signals_->fd(); }

// True when SIGINT/SIGTERM arrived (SIGCHLD only wakes the loop; SIGUSR2
// asks for a switch, done after the next drain pass), or, with a stop_fd,
// always: it is only asked once poll() found stop_fd readable.
bool Recorder::take_signals() {
  if (opts_.stop_fd >= 0) return true;
  bool stop = false;
  while (int sig = signals_->take()) {
    if (sig == SIGUSR2) switch_requested_.store(true);
    else if (sig != SIGCHLD) stop = true;
  }
  return stop;
}

// SIGUSR2 (in every --switch-output mode), a file holding SIZE bytes of
// which some are records (a preamble larger than SIZE must not switch on
// every pass), or a file older than TIME.
bool Recorder::switch_due() const {
  if (!rotated_) return false;
  if (switch_requested_) return true;
  const SwitchOutput& so = opts_.switch_output;
  uint64_t bytes = drains_.front()->out->bytes_written();
  if (so.size_bytes && bytes >= so.size_bytes && bytes > preamble_bytes_) return true;
  return so.seconds && std::chrono::steady_clock::now() - file_started_ >= std::chrono::seconds(so.seconds);
}

// Called between drain passes: every record drained so far is in the
// finished file, every later one goes to the new file.
void Recorder::switch_output() {
  switch_wait_started_.reset();
  finish_file();
  first_file_ = false;
  switch_requested_ = false;
  open_output();
  write_preamble(main_drain());
}

// Flushes and closes the current file, counts it, and with --switch-output
// renames it to OUTPUT.TIMESTAMP (dropping the oldest beyond
// --switch-max-files).
void Recorder::finish_file() {
  for (auto& d : drains_) {
    if (!d->out) continue;
    d->out->flush();
    sum_.bytes += d->out->bytes_written();
    if (auto* c = d->out->compressor()) {
      sum_.plain_bytes += c->plain_bytes();
      sum_.packed_bytes += c->compressed_bytes();
    }
    d->out.reset();
  }
  if (directory_) sum_.files = drains_.size();
  sum_.drain_threads = drains_.size();
  if (!rotated_) return;
  std::string name = rotated_->retire_current();
  sum_.files = rotated_->retired();
  if (!opts_.quiet) std::fprintf(stderr, "sonde record: wrote %s\n", name.c_str());
}

// Stops the kernel writing before anything else: under overload (-a -F max
// on busy CPUs) the sampling interrupts themselves starve the recorder and
// the workload, so draining or waiting first could take minutes.
void Recorder::stop_sampling() {
  for (auto& ev : events_)
    for (auto& fd : ev.fds) ::ioctl(fd.get(), kPerfEventIocDisable, 0);
}

// Like perf: a workload still running when the recording ends (a signal, or
// every -p/-t target gone) gets SIGTERM, and SIGKILL on a further signal;
// its exit status is the recorder's.
void Recorder::end_workload() {
  if (!workload_.running()) return;
  workload_.kill(SIGTERM);
  pollfd pfds[2] = {{stop_fd(), POLLIN, 0}, {workload_.pidfd(), POLLIN, 0}};
  while (!workload_.try_reap()) {
    ::poll(pfds, 2, kPollTimeoutMs);
    if ((pfds[0].revents & POLLIN) && take_signals()) workload_.kill(SIGKILL);
  }
}

// Drains until the recording ends: the workload exits, every -p/-t target is
// gone, or SIGINT/SIGTERM. Then sampling stops, and one last pass takes what
// the buffers hold: bounded by their size, whatever the load.
void Recorder::loop() {
  DrainPriority priority;
  std::vector<pollfd> pfds;
  pfds.push_back({stop_fd(), POLLIN, 0});
  size_t first_ring = 1;
  if (workload_.pidfd() >= 0 && workload_.running()) {
    pfds.push_back({workload_.pidfd(), POLLIN, 0});
    first_ring = 2;
  }
  for (size_t i : main_drain().rings) pfds.push_back({rings_[i].buffer->fd(), POLLIN, 0});
  for (RecordExtension* e : extensions_)
    if (int fd = e->wake_fd(); fd >= 0) pfds.push_back({fd, POLLIN, 0});

  bool workload_mode = !opts_.command.empty();
  for (;;) {
    int n = ::poll(pfds.data(), pfds.size(), kPollTimeoutMs);
    if (n < 0 && errno != EINTR) throw_runtime("poll failed: {}", errno_text(errno));
    if (n > 0) {
      for (size_t i = first_ring; i < pfds.size(); ++i)
        if (pfds[i].revents & (POLLHUP | POLLERR)) pfds[i].fd = -1;  // its tasks are gone: stop polling, keep draining
      if ((pfds[0].revents & POLLIN) && take_signals()) break;
    }
    // A writer or drain thread failed: its error ends the recording.
    if (std::any_of(drains_.begin(), drains_.end(), [](auto& d) { return d->queue->closed(); })) break;
    drain_pass(main_drain());
    if (workload_mode && workload_.try_reap()) break;
    if (!targets_alive()) break;
  }
  stop_sampling();
  stop_drainers();  // each makes its final pass
  drain_pass(main_drain(), true);
  stop_threads();
  for (auto& d : drains_)
    if (d->error) std::rethrow_exception(d->error);
  end_workload();
}

RecordSummary Recorder::run() {
  auto t0 = std::chrono::steady_clock::now();
  validate();
  signals_ = std::make_unique<SignalGuard>(opts_.stop_fd < 0, rotated_ != nullptr);
  if (!opts_.command.empty())
    workload_.start(command_path_, opts_.command, signals_->old_mask(), opts_.output == "-");
  raise_fd_limit();
  open_events();
  plan_drains();
  open_output();
  for (auto& d : drains_)
    if (d->out) write_preamble(*d);
  // Joins the threads on every way out (an exception included).
  struct ThreadJoin {
    Recorder& r;
    ~ThreadJoin() { r.stop_threads(); }
  } join{*this};
  start_threads();
  enable();
  if (!opts_.command.empty()) workload_.go();
  loop();
  finish_file();
  sum_.build_ids_read = build_ids_.files_read();
  sum_.kernel_build_ids = kernel_build_ids_;
  sum_.exit_status = opts_.command.empty() ? 0 : workload_.exit_status();
  sum_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum_;
}

}  // namespace

RecordSummary record(const RecordOptions& options) {
  Recorder r(options);
  return r.run();
}

}  // namespace sonde::record
