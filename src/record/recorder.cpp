// `sonde record` (record/recorder.h): the story of a recording. The plan
// (record_plan.h) and the checks that need the machine come first, before
// any output exists; then the workload is forked and parked, the events
// and rings opened (event_set.cpp), the output opened with its preamble
// (output_files.cpp), the drains started (drains.cpp), and the loop drains
// until the workload exits, every target is gone or a signal arrives.
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>

#include "kernel/perf_event.h"
#include "kernel/process_limits.h"
#include "record/cpu_list.h"
#include "record/proc_synthesizer.h"
#include "record/recorder_parts.h"
#include "record/task_state.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::record {

namespace {

// --threads -o DIR: DIR is created (or, when it is a directory already,
// its earlier streams are replaced) only after every check passed.
void check_output_directory(const std::string& dir) {
  struct stat st{};
  if (::stat(dir.c_str(), &st) == 0) {
    // A regular file is moved to DIR.old when the recording starts (perf's backup).
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
      throw_usage("--threads writes a directory: '{}' exists and is not a directory", dir);
    return;
  }
  // The parent folder: the text up to the last '/', or "." (assigned, not
  // built as a temporary: gcc 12 -O3 warns falsely on that, -Wrestrict).
  std::string parent = ".";
  if (size_t slash = dir.find_last_of('/'); slash != std::string::npos) parent.assign(dir, 0, slash + 1);
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw_usage("--threads writes a directory: '{}' cannot be one ('{}' is not a directory)", dir, parent);
}

}  // namespace

// Everything checked before any output exists: the plan, then what needs
// the machine (a libzstd that takes the level, the events, the targets,
// the command).
void Recorder::prepare() {
  plan_ = plan_recording(opts_, read_kernel_facts(opts_));
  if (!plan_.freq_lowered.empty()) warn(std::string_view(plan_.freq_lowered));
  // Made before the output exists: a libzstd that is missing or refuses the
  // level fails the command without leaving a file behind.
  if (opts_.compression_level > 0) compressor_ = std::make_unique<format::RecordCompressor>(opts_.compression_level);
  if (opts_.switch_output.enabled)
    rotated_ = std::make_unique<RotatedFiles>(opts_.output, opts_.switch_output.max_files);
  if (plan_.directory) check_output_directory(opts_.output);
  make_extensions();
  resolve_targets();
  build_ids_.kernel_writes_build_ids(plan_.kernel_build_ids);
  if (plan_.build_ids_off) build_ids_.disable();
}

// -e's kernel events, and the extensions that serve its '%' specs.
void Recorder::make_extensions() {
  parsed_ = parse_events(opts_.events);
  // No hardware PMU (VMs): cycles is counted as cpu-clock, as perf does.
  for (EventSpec& e : parsed_.events)
    if (std::string why = fall_back_to_cpu_clock(e, kernel::has_cpu_pmu()); !why.empty()) warn("{}", why);
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
}

// The CPUs (and --threads' groups of them), every thread of -p's
// processes, -t's threads, the command's path.
void Recorder::resolve_targets() {
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
}

// Every fd the recording holds at once is an event fd (events x CPUs x
// tasks) or an output; perf needs several per CPU and fails with "Too many
// open files" on large machines. The CLI raises the soft limit to the hard
// one (kernel/process_limits.h); past that, one line says what is needed,
// before any output.
void Recorder::check_fd_limit() {
  const uint64_t limit = kernel::open_file_limit();
  size_t tasks = plan_.system_wide ? 1 : plan_.workload ? 1 : std::max<size_t>(1, task_targets_.size());
  size_t events = parsed_.events.size();
  size_t needed = events * cpus_.size() * tasks + (thread_specs_.size() + 1) + 2 * cpus_.size() * extensions_.size() + 32;
  if (needed > limit)
    throw_runtime("the recording needs about {} file descriptors but RLIMIT_NOFILE is {} (raise the hard limit: "
                  "ulimit -Hn)", needed, limit);
}

bool Recorder::targets_alive() const {
  if (!plan_.tasks) return true;
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
  prepare();
  signals_ = std::make_unique<SignalGuard>(opts_.stop_fd < 0, rotated_ != nullptr);
  if (!opts_.command.empty())
    workload_.start(command_path_, opts_.command, signals_->old_mask(), opts_.output == "-");
  check_fd_limit();
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
  sum_.kernel_build_ids = plan_.kernel_build_ids;
  sum_.exit_status = opts_.command.empty() ? 0 : workload_.exit_status();
  sum_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum_;
}

RecordSummary record(const RecordOptions& options) {
  Recorder r(options);
  return r.run();
}

}  // namespace sonde::record
