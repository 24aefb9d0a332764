#include "trace/syscall_summary.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "bpf/embedded_object.h"
#include "trace/syscall_summary_bpf_obj.h"  // generated: syscall_summary_bpf_o[], _len
#include "util/error.h"

namespace sonde::trace {

static_assert(sizeof(sonde_summary_stats) == 88);
static_assert(sizeof(sonde_summary_key) == 16);

CallStats merge_cpu_shares(const std::vector<sonde_summary_stats>& shares, std::string& comm, uint64_t& newest) {
  CallStats c;
  long double squares = 0;
  for (const sonde_summary_stats& s : shares) {
    if (s.calls == 0) continue;
    c.calls += s.calls;
    c.errors += s.errors;
    c.total_ns += s.total_ns;
    c.min_ns = std::min<uint64_t>(c.min_ns, s.min_ns);
    c.max_ns = std::max<uint64_t>(c.max_ns, s.max_ns);
    squares += static_cast<long double>(s.squares_hi) * 18446744073709551616.0L + s.squares_lo;
    if (s.last_ns >= newest) newest = s.last_ns, comm.assign(s.comm, ::strnlen(s.comm, sizeof s.comm));
  }
  if (c.calls == 0) return c;
  const long double n = c.calls, total = c.total_ns;
  c.mean = static_cast<double>(total / n);
  // Σd² − (Σd)²/n is Welford's m2; rounding can take it a hair below 0.
  c.m2 = static_cast<double>(std::max<long double>(0, squares - total * total / n));
  return c;
}

SyscallSummaryExtension::SyscallSummaryExtension(SummaryScope scope) : scope_(std::move(scope)) {}

SyscallSummaryExtension::~SyscallSummaryExtension() {
  links_.clear();
  if (obj_) bpf_object__close(obj_);
}

std::string SyscallSummaryExtension::load_program() {
  if (obj_) return "";
  try {
    obj_ = bpf::open_embedded({syscall_summary_bpf_o, syscall_summary_bpf_o_len}, "sonde_summary", "syscall summary");
    bpf::load_or_throw(obj_, "syscall summary");
  } catch (const Error& e) {
    if (obj_) bpf_object__close(obj_), obj_ = nullptr;
    return e.what();
  }
  return "";
}

void SyscallSummaryExtension::prepare(const record::RecordTarget& target, const perf_event_attr&) {
  try {
    load(target);
  } catch (...) {
    links_.clear();
    if (obj_) bpf_object__close(obj_), obj_ = nullptr;
    throw;  // no summary without the program: the caller says why, nothing stays attached
  }
}

void SyscallSummaryExtension::load(const record::RecordTarget& target) {
  if (std::string why = load_program(); !why.empty()) throw_runtime("{}", why);
  sonde_summary_config c{};
  c.mode = target.system_wide ? SONDE_SUMMARY_ALL : SONDE_SUMMARY_TARGETS;
  c.self_tgid = static_cast<uint32_t>(::getpid());
  c.aggregate = scope_.mode == SummaryMode::Total    ? SONDE_SUMMARY_BY_TOTAL
                : scope_.mode == SummaryMode::Cgroup ? SONDE_SUMMARY_BY_CGROUP
                                                     : SONDE_SUMMARY_BY_THREAD;
  c.filtered = !scope_.syscalls.empty();
  c.workload = target.workload_pid > 0 ? static_cast<uint32_t>(target.workload_pid) : 0;
  uint32_t zero = 0;
  if (bpf_map_update_elem(bpf::map_fd(obj_, "config"), &zero, &c, BPF_ANY) != 0)
    throw_runtime("BPF config: {}", errno_text(errno));
  const int wanted_fd = bpf::map_fd(obj_, "wanted"), tgids_fd = bpf::map_fd(obj_, "tgids");
  uint8_t one = 1;
  for (uint32_t nr : scope_.syscalls)
    if (nr < SONDE_SUMMARY_SLOTS) bpf_map_update_elem(wanted_fd, &nr, &one, BPF_ANY);
  for (pid_t p : target.pids) {
    if (p == target.workload_pid) continue;  // the command joins at its exec (sonde_summary_exec)
    uint32_t k = static_cast<uint32_t>(p);
    bpf_map_update_elem(tgids_fd, &k, &one, BPF_ANY);
  }
  auto attach = [this](const char* tp, const char* prog) {
    int link = bpf_raw_tracepoint_open(tp, bpf::prog_fd(obj_, prog));
    if (link < 0) throw_runtime("cannot attach to the {} tracepoint: {}", tp, errno_text(errno));
    links_.emplace_back(link);
  };
  if (!target.system_wide) {
    attach("task_newtask", "sonde_summary_fork");
    attach("sched_process_exit", "sonde_summary_task_exit");
    if (c.workload) attach("sched_process_exec", "sonde_summary_exec");
  }
  attach("sys_exit", "sonde_summary_exit");
  attach("sys_enter", "sonde_summary_enter");
}

void SyscallSummaryExtension::stop() {
  links_.clear();  // first: the maps stop changing
  if (!obj_) return;
  read_stats();
  bpf_object__close(obj_);
  obj_ = nullptr;
}

// Every (thread, syscall) pair's per-CPU values, grouped by thread in tid order.
void SyscallSummaryExtension::read_stats() {
  const int ncpus = libbpf_num_possible_cpus();
  if (ncpus <= 0) throw_runtime("cannot count the possible CPUs: {}", errno_text(-ncpus));
  const int stats_fd = bpf::map_fd(obj_, "stats");
  std::vector<sonde_summary_stats> shares(static_cast<size_t>(ncpus));
  std::map<uint64_t, ThreadStats> by_owner;
  std::map<uint64_t, uint64_t> newest;  // by owner: the time of its newest call (its name then)
  sonde_summary_key key{}, next{};
  const void* prev = nullptr;
  while (bpf_map_get_next_key(stats_fd, prev, &next) == 0) {
    key = next;
    prev = &key;
    if (bpf_map_lookup_elem(stats_fd, &key, shares.data()) != 0) continue;  // gone meanwhile
    ThreadStats& t = by_owner[key.owner];
    if (scope_.mode == SummaryMode::Thread) t.tid = static_cast<uint32_t>(key.owner);
    for (const auto& s : shares)
      if (s.calls) t.pid = s.pid;
    CallStats c = merge_cpu_shares(shares, t.comm, newest[key.owner]);
    t.events += 2 * c.calls;
    t.calls[key.nr] = c;
  }
  std::vector<uint64_t> drops(static_cast<size_t>(ncpus));
  for (uint32_t kind = 0; kind < SONDE_SUMMARY_DROP_KINDS; ++kind)
    if (bpf_map_lookup_elem(bpf::map_fd(obj_, "dropped"), &kind, drops.data()) == 0)
      for (uint64_t n : drops) dropped_[kind] += n;
  groups_.clear();
  for (auto& [owner, t] : by_owner) groups_.push_back({owner, std::move(t)});
}

}  // namespace sonde::trace
