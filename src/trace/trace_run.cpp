#include "trace/trace_run.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analysis/directory_reader.h"
#include "analysis/recording_walker.h"
#include "analysis/symbol_resolver.h"
#include "format/file_mode_writer.h"
#include "format/stream_reader.h"
#include "format/tracepoint_format.h"
#include "kernel/cgroup_paths.h"
#include "record/file_mode_record.h"
#include "record/recorder.h"
#include "symbol/symbolizer.h"
#include "trace/call_chain_lines.h"
#include "trace/syscall_strings.h"
#include "trace/syscall_summary.h"
#include "trace/syscall_table.h"
#include "trace/syscall_tracer.h"
#include "trace/trace_summary.h"
#include "util/byte_reader.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/diagnostics.h"

namespace sonde::trace {

namespace {

constexpr uint32_t kTracepointType = 2;  // PERF_TYPE_TRACEPOINT
// Longer -e lists are filtered here rather than by the kernel (its filter
// text has a size limit).
constexpr size_t kMaxKernelFilterCalls = 64;

// Where a raw_syscalls sample keeps its fields (from the recording's formats).
struct SyscallEventLayout {
  enum Kind { Other, Enter, Exit, String } kind = Other;
  uint32_t id_offset = 0, value_offset = 0;  // value: args[6] or ret
};

SyscallEventLayout layout_of(const format::TracepointFormat& fmt) {
  SyscallEventLayout l;
  if (fmt.system != "raw_syscalls") return l;
  const bool enter = fmt.name == "sys_enter";
  if (!enter && fmt.name != "sys_exit") return l;
  bool have_id = false, have_value = false;
  for (const auto& f : fmt.fields) {
    if (f.name == "id" && f.size == 8) l.id_offset = f.offset, have_id = true;
    if (enter && f.name == "args" && f.size == 48) l.value_offset = f.offset, have_value = true;
    if (!enter && f.name == "ret" && f.size == 8) l.value_offset = f.offset, have_value = true;
  }
  if (have_id && have_value) l.kind = enter ? SyscallEventLayout::Enter : SyscallEventLayout::Exit;
  return l;
}

// Feeds a recording's raw_syscalls samples to the tracer, in time order.
class SampleDispatch {
 public:
  SampleDispatch(analysis::RecordingWalker& walker, SyscallTracer& tracer) : walker_(walker), tracer_(tracer) {}
  // Call chains under the lines: each exit that printed a line and carries
  // a chain (--call-graph, or a recording made with one).
  void print_chains(CallChainLines* chains, std::FILE* out) { chains_ = chains, out_ = out; }

  void operator()(const format::Sample& s) {
    const SyscallEventLayout& l = layout(s.event);
    if (l.kind == SyscallEventLayout::Other) return;
    if (l.kind == SyscallEventLayout::String) {
      StringPayload p;
      if (parse_string_payload(s.raw, p)) tracer_.on_string(s.tid, s.time, p.nr, p.arg, p.text);
      else ++malformed_;
      return;
    }
    const size_t need = l.value_offset + (l.kind == SyscallEventLayout::Enter ? 48 : 8);
    if (s.raw.size() < need || s.raw.size() < l.id_offset + 8) {
      ++malformed_;
      return;
    }
    const uint64_t nr = load<uint64_t>(s.raw.data() + l.id_offset);
    if (l.kind == SyscallEventLayout::Enter) {
      uint64_t args[6];
      for (int i = 0; i < 6; ++i) args[i] = load<uint64_t>(s.raw.data() + l.value_offset + 8 * i);
      tracer_.on_enter(s.pid, s.tid, s.time, nr, args);
    } else {
      const uint64_t printed = tracer_.lines_printed();
      tracer_.on_exit(s.pid, s.tid, s.time, nr, load<int64_t>(s.raw.data() + l.value_offset));
      if (chains_ && tracer_.lines_printed() > printed && !s.callchain.empty()) {
        std::string text = chains_->lines(s, walker_.space());
        std::fwrite(text.data(), 1, text.size(), out_);
      }
    }
  }
  uint64_t malformed() const { return malformed_; }

 private:
  const SyscallEventLayout& layout(const format::EventInfo* ev) {
    auto it = layouts_.find(ev);
    if (it != layouts_.end()) return it->second;
    if (formats_.empty()) formats_ = format::parse_tracing_data(walker_.session().tracing_data());
    SyscallEventLayout l;
    if (ev && ev->name == kStringEventName) l.kind = SyscallEventLayout::String;
    if (ev && ev->attr.type == kTracepointType)
      if (auto f = formats_.find(ev->attr.config); f != formats_.end()) l = layout_of(f->second);
    return layouts_.emplace(ev, l).first->second;
  }

  analysis::RecordingWalker& walker_;
  SyscallTracer& tracer_;
  std::unordered_map<uint64_t, format::TracepointFormat> formats_;
  std::unordered_map<const format::EventInfo*, SyscallEventLayout> layouts_;
  uint64_t malformed_ = 0;
  CallChainLines* chains_ = nullptr;
  std::FILE* out_ = nullptr;
};

// SIGINT/SIGTERM end a live trace through the recorder's stop_fd: blocked
// here (and so in the threads started after), read from a signalfd by a
// small thread that also ends when `quit` is written.
class StopOnSignal {
 public:
  explicit StopOnSignal(int stop_fd) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    signal_fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    quit_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!signal_fd_ || !quit_) throw_runtime("cannot create a signalfd: {}", errno_text(errno));
    thread_ = std::thread([this, stop_fd] {
      pollfd p[2] = {{signal_fd_.get(), POLLIN, 0}, {quit_.get(), POLLIN, 0}};
      while (::poll(p, 2, -1) >= 0 || errno == EINTR) {
        if (p[1].revents) return;
        if (p[0].revents) {
          uint64_t one = 1;
          [[maybe_unused]] ssize_t n = ::write(stop_fd, &one, sizeof one);
          return;
        }
      }
    });
  }
  ~StopOnSignal() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(quit_.get(), &one, sizeof one);
    thread_.join();
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_{};
  UniqueFd signal_fd_, quit_;
  std::thread thread_;
};

TracerOptions tracer_options(const TraceOptions& o) {
  TracerOptions t;
  t.lines = !o.summary_only;
  t.full_time = o.full_time;
  t.failures_only = o.failures_only;
  t.max_events = o.max_events;
  t.live = o.input.empty();  // a replay reads no /proc (fd_paths.h)
  if (!o.duration.empty()) t.min_duration_ns = parse_duration_ns(o.duration);
  if (!o.syscalls.empty()) t.syscalls = select_syscalls(o.syscalls);
  return t;
}

void check_targets(const TraceOptions& o) {
  int n = (o.pids.empty() ? 0 : 1) + (o.system_wide ? 1 : 0) + (o.command.empty() ? 0 : 1);
  if (!o.input.empty() && n) throw_usage("-i replays a recording: it takes no -p, -a or command");
  if (o.input.empty() && n == 0) throw_usage("nothing to trace: give a command (-- CMD), -p PID or -a");
  // -a with a command traces every process until the command ends, as perf.
  if (!o.pids.empty() && n > 1) throw_usage("-p PID takes no command and no -a");
  if (o.summary_only && o.summary) throw_usage("-s (summary only) and -S (with the lines) exclude each other");
  if (o.bpf_summary.value_or(false) && ((!o.summary_only && !o.summary) || !o.input.empty()))
    throw_usage("--bpf-summary counts a live trace's calls in BPF: it needs -s or -S, and no -i");
  if (o.summary_mode == SummaryMode::Cgroup && (!o.bpf_summary.value_or(true) || !o.input.empty()))
    throw_usage("--summary-mode=cgroup is counted in BPF: it takes no --no-bpf-summary and no -i");
}

bool uses_bpf_summary(const TraceOptions& o) {
  if (o.bpf_summary) return *o.bpf_summary;
  return o.summary_only || o.summary_mode == SummaryMode::Cgroup;
}

// The summary's text for `threads`: per thread (perf's -s) or one table
// (--summary-mode=total).
std::string summary_text(const TraceOptions& o, const std::vector<const ThreadStats*>& threads,
                         const CommLookup& comm) {
  if (o.summary_mode == SummaryMode::Total) return format_total_summary(total_of(threads));
  uint64_t events = 0;
  for (const ThreadStats* t : threads) events += t->events;
  return format_summary(threads, events, comm);
}

// The recorder's view of the target and its kernel-side filter.
record::RecordOptions recorder_options(const TraceOptions& o, const TracerOptions& t) {
  record::RecordOptions r;
  r.events = kSyscallEvents;
  r.command = o.command;
  r.pids = o.pids;
  r.system_wide = o.system_wide;
  r.build_id_mode = record::BuildIdMode::None;
  r.mmap_pages = 1024;  // 4 MiB per CPU: two samples per call come fast (perf trace sizes its buffers up too)
  r.cmdline = o.cmdline;
  r.quiet = true;
  // perf trace's --call-graph: the user part only (its --kernel-syscall-graph is off).
  r.callchain = o.callchain;
  r.user_callchain = o.callchain;
  r.user_stack_bytes = o.user_stack_bytes;
  std::string filter;
  if (!t.syscalls.empty() && t.syscalls.size() <= kMaxKernelFilterCalls) {
    for (uint32_t nr : t.syscalls) filter += fmt::format("{}id == {}", filter.empty() ? "" : " || ", nr);
    filter = "(" + filter + ")";
  }
  // System-wide, sonde's own calls would trace themselves (perf filters its pid too).
  if (o.system_wide) filter += fmt::format("{}common_pid != {}", filter.empty() ? "" : " && ", ::getpid());
  if (!filter.empty())
    for (const auto& e : kSyscallEvents) r.tracepoint_filters.emplace_back(e, filter);
  return r;
}

struct Output {
  std::FILE* file = nullptr;
  bool owned = false;
  Output(const std::string& path, std::FILE* terminal) : file(terminal) {
    if (path.empty()) return;
    owned = true;
    file = std::fopen(path.c_str(), "w");
    if (!file) throw_runtime("cannot create '{}': {}", path, errno_text(errno));
  }
  ~Output() {
    if (owned) std::fclose(file);
  }
};

// Reads `reader` to its end, printing; then the summary and what was lost.
void replay(format::RecordReader& reader, const TracerOptions& topts, SyscallSignatures& signatures,
            const TraceOptions& o, std::FILE* out, const std::function<void()>& on_done) {
  // Symbols and the DWARF unwinder are loaded only when a chain is printed.
  Symbolizer symbolizer;
  analysis::SymbolResolver resolver(symbolizer);
  CallChainLines chains(resolver, o.max_stack);
  analysis::RecordingWalker walker(reader, analysis::dwarf_unwinding(""));
  CommLookup comm = [&](uint32_t tid) { return walker.space().comm(tid, tid); };
  SyscallTracer tracer(topts, signatures, out, comm);
  SampleDispatch dispatch(walker, tracer);
  dispatch.print_chains(&chains, out);
  bool stopped = false;
  walker.run([&](const format::Sample& s) {
    dispatch(s);
    if (!stopped && tracer.done()) {
      stopped = true;
      if (on_done) on_done();
    }
  });
  if (o.summary_only || o.summary) {
    std::string text = summary_text(o, tracer.threads(), comm);
    std::fwrite(text.data(), 1, text.size(), out);
  }
  std::fflush(out);
  if (walker.stats().lost_samples)
    warn("{} events lost (the kernel's buffers were full)", walker.stats().lost_samples);
  if (dispatch.malformed())
    warn("{} malformed raw_syscalls samples skipped", dispatch.malformed());
}

// The summary the BPF maps kept, and what they had no room for.
void print_bpf_summary(const TraceOptions& o, const SyscallSummaryExtension& summary, std::FILE* out) {
  std::vector<const ThreadStats*> threads;
  std::unordered_map<uint32_t, std::string> names;
  for (const SummaryGroup& g : summary.groups()) threads.push_back(&g.stats), names[g.stats.tid] = g.stats.comm;
  CommLookup comm = [&](uint32_t tid) -> std::string_view { return names[tid]; };
  std::string text;
  if (o.summary_mode == SummaryMode::Cgroup) {
    auto paths = kernel::cgroup_paths();
    std::vector<CgroupStats> cgroups;
    for (const SummaryGroup& g : summary.groups()) {
      auto it = paths.find(g.owner);
      cgroups.push_back({it != paths.end() ? it->second : fmt::format("[id {}]", g.owner), &g.stats});
    }
    text = format_cgroup_summary(std::move(cgroups));
  } else {
    text = summary_text(o, threads, comm);
  }
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  if (uint64_t n = summary.dropped()) warn("{} calls not counted (the BPF maps were full)", n);
}

// The summary program, loaded: asked for by name, it must load; chosen by
// default (-s), a machine without BPF counts streamed events (nullptr).
std::unique_ptr<SyscallSummaryExtension> loaded_summary(const TraceOptions& o, const TracerOptions& t) {
  auto counter = std::make_unique<SyscallSummaryExtension>(SummaryScope{t.syscalls, o.summary_mode});
  std::string why = counter->load_program();
  if (why.empty()) return counter;
  if (o.bpf_summary) throw_runtime("{}", why);
  if (o.summary_mode == SummaryMode::Cgroup) throw_runtime("--summary-mode=cgroup needs BPF: {}", why);
  note("counting the summary from streamed events: {}", why);
  return nullptr;
}

// -s with the counts kept in BPF maps: the recorder runs the workload (or
// follows -p/-a) with only a dummy event, its stream thrown away; the
// summary extension counts the calls and is read when the recording ends.
int run_bpf_summary(const TraceOptions& o, std::unique_ptr<SyscallSummaryExtension> counter) {
  record::RecordOptions r;
  r.events = {"dummy"};
  r.command = o.command;
  r.pids = o.pids;
  r.system_wide = o.system_wide;
  r.build_id_mode = record::BuildIdMode::None;
  r.mmap_pages = 8;
  r.cmdline = o.cmdline;
  r.quiet = true;
  UniqueFd sink(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  UniqueFd stop(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!sink || !stop) throw_runtime("cannot open /dev/null or an eventfd: {}", errno_text(errno));
  r.output_fd = sink.get();
  r.stop_fd = stop.get();
  SyscallSummaryExtension* summary = counter.get();
  r.extensions.push_back(std::move(counter));
  Output out(o.output, o.terminal);
  StopOnSignal signals(stop.get());
  const int status = record::record(r).exit_status;
  print_bpf_summary(o, *summary, out.file);
  return status;
}

}  // namespace

uint64_t parse_duration_ns(const std::string& text) {
  double ms = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(ms) || ms < 0 ||
      ms > 1e9)
    throw_usage("invalid --duration '{}': expected milliseconds, a number of at least 0 (e.g. 0.5)", text);
  return static_cast<uint64_t>(std::llround(ms * 1e6));
}

int run_trace(const TraceOptions& o) {
  check_targets(o);
  const TracerOptions topts = tracer_options(o);
  SyscallSignatures signatures(SyscallSignatures::find_events_dir());
  if (!o.input.empty()) {
    auto reader = analysis::open_input(o.input);
    Output out(o.output, o.terminal);
    replay(*reader, topts, signatures, o, out.file, nullptr);
    return 0;
  }
  if (uses_bpf_summary(o) && o.summary_only)
    if (auto counter = loaded_summary(o, topts)) return run_bpf_summary(o, std::move(counter));
  StringsOutcome strings;  // outlives the options that own the extension filling it
  record::RecordOptions r = recorder_options(o, topts);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_runtime("cannot create a pipe: {}", errno_text(errno));
  UniqueFd pipe_read(fds[0]), pipe_write(fds[1]);
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);  // best effort: room while this thread prints
  UniqueFd stop(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop) throw_runtime("cannot create an eventfd: {}", errno_text(errno));
  r.output_fd = pipe_write.get();
  r.stop_fd = stop.get();
  // Path strings read at entry by BPF, on the BPF clock (CLOCK_MONOTONIC).
  r.extensions.push_back(std::make_unique<SyscallStringsExtension>(string_argument_masks(signatures), strings));
  r.monotonic_clock = true;
  // -S --bpf-summary: the lines streamed, the summary counted in BPF.
  TraceOptions lines = o;
  SyscallSummaryExtension* bpf_summary = nullptr;
  if (uses_bpf_summary(o)) {
    auto counter = std::make_unique<SyscallSummaryExtension>(SummaryScope{topts.syscalls, o.summary_mode});
    bpf_summary = counter.get();
    r.extensions.push_back(std::move(counter));
    lines.summary = false;
  }
  Output out(o.output, o.terminal);
  StopOnSignal signals(stop.get());
  std::exception_ptr failure;
  record::RecordSummary summary;
  std::thread recorder([&] {
    try {
      summary = record::record(r);
    } catch (...) {
      failure = std::current_exception();
    }
    pipe_write.reset();  // the reader sees the end
  });
  try {
    auto reader = format::open_recording(std::move(pipe_read), "the live trace");
    replay(*reader, topts, signatures, lines, out.file, [&] {
      uint64_t one = 1;
      [[maybe_unused]] ssize_t n = ::write(stop.get(), &one, sizeof one);
    });
  } catch (...) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(stop.get(), &one, sizeof one);
    recorder.join();
    if (failure) std::rethrow_exception(failure);  // the recorder's reason comes first
    throw;
  }
  recorder.join();
  if (failure) std::rethrow_exception(failure);
  if (bpf_summary) print_bpf_summary(o, *bpf_summary, out.file);
  warn_about_strings(strings);
  return summary.exit_status;
}

int record_trace(const TraceOptions& o, const std::string& output) {
  check_targets(o);
  if (!o.input.empty()) throw_usage("trace record takes no -i");
  const TracerOptions topts = tracer_options(o);
  StringsOutcome strings;  // outlives the options that own the extension filling it
  record::RecordOptions r = recorder_options(o, topts);
  // The path strings go into the recording as samples of their own event,
  // so `trace -i` shows the paths a live trace shows.
  SyscallSignatures signatures(SyscallSignatures::find_events_dir());
  r.extensions.push_back(std::make_unique<SyscallStringsExtension>(string_argument_masks(signatures), strings));
  r.monotonic_clock = true;
  r.output = output;
  const int status = output == "-" ? record::record(r).exit_status : record::record_file_mode(std::move(r)).exit_status;
  warn_about_strings(strings);
  if (output != "-") note("wrote {}", output);
  return status;
}

}  // namespace sonde::trace
