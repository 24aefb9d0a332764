#include "stat/stat_session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <cmath>

#include "format/stream_writer.h"
#include "record/cpu_list.h"
#include "record/workload.h"
#include "stat/counters.h"
#include "stat/sdt_counts.h"
#include "stat/stat_events.h"
#include "stat/stat_stream.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/diagnostics.h"

namespace sonde::stat {

namespace {

timespec to_timespec(uint64_t ns) {
  return {static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
}

bool has_task_target(const StatOptions& o) { return !o.pids.empty() || !o.tids.empty(); }
bool counts_cpus(const StatOptions& o) {
  return o.system_wide || !o.cpu_list.empty() || (o.per_thread && !has_task_target(o));
}

// Welford's running mean and variance, as perf's struct stats.
struct RunStats {
  double n = 0, mean = 0, m2 = 0;
  void add(double x) {
    n += 1;
    double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  // perf's stddev_stats: the standard deviation of the mean.
  double stddev_of_mean() const { return n < 2 ? 0 : std::sqrt(m2 / (n - 1) / n); }
};

std::string target_text(const StatOptions& o) {
  auto join = [](const std::vector<int>& v) {
    std::string s;
    for (int x : v) {
      if (!s.empty()) s += ',';
      s += std::to_string(x);
    }
    return s;
  };
  if (o.system_wide || (o.per_thread && !has_task_target(o) && o.cpu_list.empty())) return "'system wide";
  if (!o.cpu_list.empty()) return "'CPU(s) " + o.cpu_list;
  if (!o.pids.empty()) return "process id '" + join(o.pids);
  if (!o.tids.empty()) return "thread id '" + join(o.tids);
  std::string s = "'";
  for (size_t i = 0; i < o.command.size(); ++i) {
    if (i) s += ' ';
    s += o.command[i];
  }
  return s;
}

// Signals that end counting; blocked here and read from a signalfd, so the
// final counts are always read and printed.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&set_);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set_, s);
    ::sigprocmask(SIG_BLOCK, &set_, &old_);
    fd_.reset(::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  ~StopSignals() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }
  int fd() const { return fd_.get(); }
  const sigset_t& old_mask() const { return old_; }

 private:
  sigset_t set_, old_;
  UniqueFd fd_;
};

struct Context {
  const StatOptions& o;
  AggrMode mode;
  StatPrinter& printer;
  bool quiet;
  std::unique_ptr<format::StreamWriter> stream;
  std::unique_ptr<StatStreamWriter> stat_writer;
  std::vector<std::string> sdt_specs;  // the -e '%provider:event' items
  SdtCounts* sdt = nullptr;            // this run's, when there are specs
  uint64_t t0 = 0;
};

// SDT hits go in the first (CPU, thread) slot of their events, enabled and
// running for the time counted so far (they count every hit, unscaled).
void fill_sdt(const Context& ctx, CountTable& table) {
  if (!ctx.sdt) return;
  ctx.sdt->drain();
  uint64_t elapsed = monotonic_ns() - ctx.t0;
  size_t probe = 0;
  for (size_t e = 0; e < table.events.size(); ++e)
    if (!table.events[e].sdt_spec.empty()) table.at(e, 0, 0) = {ctx.sdt->hits(probe++), elapsed, elapsed};
}

struct RunResult {
  uint64_t wall_ns = 0;
  double user_s = 0, sys_s = 0;
  int status = 0;
};

StatTarget make_target(const StatOptions& o, pid_t workload) {
  StatTarget t;
  if (o.per_thread && !has_task_target(o)) {
    t.threads = all_threads();
    t.per_thread_system = true;
  } else if (counts_cpus(o)) {
    t.cpus = o.cpu_list.empty() ? record::online_cpus() : record::parse_cpu_list(o.cpu_list);
  } else if (has_task_target(o)) {
    t.threads = threads_of(o.pids, o.tids);
  } else {
    t.threads = {ThreadEntry{workload, ""}};
  }
  return t;
}

// Prints (and records) one interval: the counts since the previous one.
void interval_tick(Context& ctx, const CountTable& now, CountTable& prev, const CounterIds& ids, uint64_t since_start) {
  CountTable d = now;
  for (size_t e = 0; e < now.events.size(); ++e)
    for (size_t c = 0; c < now.cpus.size(); ++c)
      for (size_t t = 0; t < now.threads.size(); ++t) d.at(e, c, t) = delta(now.at(e, c, t), prev.at(e, c, t));
  prev = now;
  timespec ts = to_timespec(since_start);
  if (!ctx.quiet)
    ctx.printer.counters(d, aggregate(d, ctx.mode), ctx.o.interval_ms * 1e6, {}, &ts);
  if (ctx.stat_writer)
    ctx.stat_writer->write_round(now, ids, false, since_start);
}

bool threads_alive(const CountTable& t) {
  for (const auto& th : t.threads)
    if (th.pid > 0 && ::kill(th.pid, 0) == 0) return true;
  return false;
}

// Waits until the workload ends (or, without one, a stop signal or the
// counted processes' end), printing intervals on an absolute timer so
// their period does not drift.
void wait_for_end(Context& ctx, record::Workload* w, const StopSignals& sig, Counters& counters, CountTable& table,
                  const CounterIds& ids, uint64_t t0) {
  UniqueFd timer;
  if (ctx.o.interval_ms) {
    timer.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    itimerspec its{};
    its.it_interval = to_timespec(ctx.o.interval_ms * 1000000ull);
    its.it_value = to_timespec(t0 + ctx.o.interval_ms * 1000000ull);
    ::timerfd_settime(timer.get(), TFD_TIMER_ABSTIME, &its, nullptr);
  }
  CountTable prev = table;
  uint64_t last_tick = t0;
  for (;;) {
    pollfd p[3] = {{sig.fd(), POLLIN, 0}, {timer.get(), POLLIN, 0}, {w ? w->pidfd() : -1, POLLIN, 0}};
    // SDT rings are drained at least every 100 ms so they do not overflow.
    int n = ::poll(p, 3, (w && w->pidfd() >= 0 && !ctx.sdt) ? -1 : 100);
    if (ctx.sdt) ctx.sdt->drain();
    if (n < 0 && errno != EINTR) throw_runtime("poll: {}", errno_text(errno));
    if (p[0].revents) {
      if (w) w->kill(SIGTERM);
      break;
    }
    if (p[1].revents) {
      uint64_t expirations;
      if (::read(timer.get(), &expirations, sizeof expirations) > 0) {
        counters.read(table);
        fill_sdt(ctx, table);
        last_tick = monotonic_ns();
        interval_tick(ctx, table, prev, ids, last_tick - t0);
      }
    }
    if (w ? w->try_reap() : (has_task_target(ctx.o) && !threads_alive(table))) break;
  }
  if (ctx.o.interval_ms) {
    counters.read(table);
    fill_sdt(ctx, table);
    interval_tick(ctx, table, prev, ids, monotonic_ns() - t0);
  }
}

}  // namespace

namespace {

RunResult run_once(Context& ctx, CountTable& table, const StopSignals& sig, bool first) {
  const StatOptions& o = ctx.o;
  std::unique_ptr<record::Workload> w;
  if (!o.command.empty()) {
    w = std::make_unique<record::Workload>();
    w->start(record::resolve_command(o.command[0]), o.command, sig.old_mask(), o.record_path == "-");
  }
  bool workload_is_target = w && !counts_cpus(o) && !has_task_target(o);
  StatTarget target = make_target(o, w ? w->pid() : -1);
  std::unique_ptr<SdtCounts> sdt;
  if (!ctx.sdt_specs.empty()) {
    sdt = std::make_unique<SdtCounts>(ctx.sdt_specs);
    std::vector<int> pids = o.pids;
    pids.insert(pids.end(), o.tids.begin(), o.tids.end());
    auto names = sdt->attach(workload_is_target ? w->pid() : -1, w ? record::resolve_command(o.command[0]) : "",
                             pids, target.cpus);
    if (first) expand_sdt_events(table.events, names);
    ctx.sdt = sdt.get();
  }
  prepare_counting_attrs(table.events, workload_is_target, o.no_inherit);
  Counters counters;
  counters.open(table, target);
  // SDT events have no kernel counter: their STAT records carry an id of
  // sonde's (the SdtExtension's id space), in the first slot only.
  CounterIds ids = [&](size_t e, size_t c, size_t t) -> uint64_t {
    if (table.events[e].sdt_spec.empty()) return counters.id(e, c, t);
    return c == 0 && t == 0 ? (uint64_t{1} << 62) + e : 0;
  };
  if (ctx.stat_writer && first) ctx.stat_writer->write_header(table, ids, ctx.mode, o.interval_ms);
  uint64_t t0 = monotonic_ns();
  ctx.t0 = t0;
  if (!workload_is_target) counters.enable();
  if (w) w->go();
  wait_for_end(ctx, w.get(), sig, counters, table, ids, t0);
  RunResult r;
  if (w) w->reap();
  r.wall_ns = monotonic_ns() - t0;
  counters.disable();
  counters.read(table);
  fill_sdt(ctx, table);
  if (sdt) {
    sdt->detach();
    if (sdt->lost()) warn("{} SDT hits lost (ring buffers full): those counts are low", sdt->lost());
    ctx.sdt = nullptr;
  }
  if (w) {
    r.status = w->exit_status();
    const auto& u = w->usage();
    r.user_s = u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6;
    r.sys_s = u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
  }
  if (ctx.stat_writer && !o.interval_ms) ctx.stat_writer->write_round(table, ids, true, r.wall_ns);
  return r;
}

// -r: the mean of every run's aggregated counts.
void add_run(Aggregated& sum, const Aggregated& run) {
  if (sum.ids.empty()) {
    sum = run;
    return;
  }
  for (size_t i = 0; i < sum.ids.size() && i < run.ids.size(); ++i)
    for (size_t e = 0; e < sum.counts[i].size(); ++e) {
      auto& a = sum.counts[i][e];
      const auto& b = run.counts[i][e];
      a.val += b.val;
      a.ena += b.ena;
      a.run += b.run;
    }
}

void divide(Aggregated& sum, int runs) {
  for (auto& row : sum.counts)
    for (auto& c : row) {
      c.val /= runs;
      c.ena /= runs;
      c.run /= runs;
    }
}

std::unique_ptr<format::StreamWriter> open_stream(const std::string& path) {
  if (path == "-") return std::make_unique<format::StreamWriter>(1);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_runtime("cannot create '{}': {}", path, errno_text(errno));
  return std::make_unique<format::StreamWriter>(fd);
}

}  // namespace

AggrMode check_options(const StatOptions& o) {
  int modes = o.per_thread + o.no_aggr + o.per_core + o.per_socket + o.per_die + o.per_node;
  if (modes > 1) throw_usage("choose one of -A/--no-aggr, --per-core, --per-die, --per-socket, --per-node, --per-thread");
  if (o.repeat < 1) throw_usage("-r/--repeat must be at least 1 (got {})", o.repeat);
  if (o.repeat > 1 && o.interval_ms) throw_usage("-I and -r cannot be combined");
  if (o.repeat > 1 && (o.command.empty())) throw_usage("-r needs a command to repeat");
  if (!o.record_path.empty() && o.repeat > 1) throw_usage("stat record counts one run: -r is not supported");
  bool cpus = o.system_wide || !o.cpu_list.empty();
  if (cpus && has_task_target(o)) throw_usage("-p/-t and -a/-C cannot be combined");
  if (o.per_thread && !o.command.empty() && !cpus && !has_task_target(o))
    throw_usage("--per-thread needs -p, -t or -a (or no command)");
  if (o.command.empty() && !cpus && !has_task_target(o) && !o.per_thread)
    throw_usage("nothing to count: give a command (-- CMD ARGS), -a, -C, -p or -t");
  if (o.print.style == OutputStyle::Csv && o.print.csv_sep.empty()) throw_usage("-x needs a separator");
  if (o.per_thread) return AggrMode::Thread;
  if (o.no_aggr) return AggrMode::None;
  if (o.per_core) return AggrMode::Core;
  if (o.per_die) return AggrMode::Die;
  if (o.per_socket) return AggrMode::Socket;
  if (o.per_node) return AggrMode::Node;
  return AggrMode::Global;
}

void resolve_events(StatOptions& o) {
  check_options(o);
  if (!o.cpu_list.empty()) record::parse_cpu_list(o.cpu_list);  // a usage error before anything runs
  o.counters = o.events.empty() ? default_events(counts_cpus(o)) : parse_stat_events(o.events, o.event_filters);
}

int run_stat(const StatOptions& o, std::FILE* out) {
  AggrMode mode = check_options(o);
  CountTable table;
  if (o.counters.empty()) {
    StatOptions resolved = o;
    resolve_events(resolved);
    table.events = std::move(resolved.counters);
  } else {
    table.events = o.counters;
  }
  StatPrinter printer(out, o.print);
  Context ctx{o, mode, printer, out == nullptr, nullptr, nullptr, {}, nullptr, 0};
  for (const auto& e : table.events)
    if (!e.sdt_spec.empty()) ctx.sdt_specs.push_back(e.sdt_spec);
  if (!o.record_path.empty()) {
    ctx.stream = open_stream(o.record_path);
    ctx.stat_writer = std::make_unique<StatStreamWriter>(*ctx.stream);
  }
  StopSignals sig;
  Aggregated sum;
  std::vector<RunStats> per_event;
  RunStats wall;
  RunResult last;
  try {
    for (int run = 0; run < o.repeat; ++run) {
      last = run_once(ctx, table, sig, run == 0);
      wall.add(static_cast<double>(last.wall_ns));
      add_run(sum, aggregate(table, mode));
      Aggregated global = aggregate(table, AggrMode::Global);
      per_event.resize(table.events.size());
      for (size_t e = 0; e < table.events.size(); ++e) per_event[e].add(global.counts[0][e].val);
    }
  } catch (const Error& e) {
    // A usage error the kernel finds when counting starts (a --filter it
    // refuses) leaves no stream behind, as one found earlier does.
    if (e.kind() == ErrorKind::Usage && ctx.stream && o.record_path != "-") ::unlink(o.record_path.c_str());
    throw;
  }
  if (!out || o.interval_ms) return last.status;
  divide(sum, o.repeat);
  std::vector<double> noise;
  for (const auto& s : per_event) noise.push_back(s.mean != 0 ? 100.0 * s.stddev_of_mean() / s.mean : 0);
  printer.header(target_text(o));
  printer.counters(table, sum, wall.mean, noise, nullptr);
  RunFacts f;
  f.wall_ns = wall.mean;
  f.wall_stddev_ns = wall.stddev_of_mean();
  f.show_rusage = !o.command.empty() && o.repeat == 1 && !counts_cpus(o) && !has_task_target(o);
  f.user_s = last.user_s;
  f.sys_s = last.sys_s;
  printer.footer(f);
  return last.status;
}

}  // namespace sonde::stat
