/* perf trace -s computed in the kernel (`trace -s --bpf-summary`, perf's
 * --bpf-summary): on raw_syscalls' sys_enter the call's start time is kept
 * per thread; on sys_exit its duration joins the (thread, syscall) pair's
 * count, errors, total, min, max and sum of squares in a per-CPU hash that
 * sonde reads once at the end. No event is streamed, so nothing is lost to
 * a full buffer: a call that finds no room in a map is counted instead. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/follow_forks.bpf.h"
#include "syscall_summary_abi.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_summary_config);
} config SEC(".maps");

/* -e: 1 for each syscall number counted (config.filtered). */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, SONDE_SUMMARY_SLOTS);
  __type(key, __u32);
  __type(value, __u8);
} wanted SEC(".maps");

struct start {
  __u64 ns;
  __u64 nr;
};

/* Calls entered and not returned yet, by thread. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, SONDE_SUMMARY_ENTRIES);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, struct start);
} starts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, SONDE_SUMMARY_ENTRIES);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct sonde_summary_key);
  __type(value, struct sonde_summary_stats);
} stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, SONDE_SUMMARY_DROP_KINDS);
  __type(key, __u32);
  __type(value, __u64);
} dropped SEC(".maps");

static __always_inline void count_drop(__u32 kind) {
  __u64 *n = bpf_map_lookup_elem(&dropped, &kind);
  if (n) *n += 1;
}

/* The thread is one sonde counts: not sonde, followed (or -a), and its
 * call wanted by -e. */
static __always_inline struct sonde_summary_config *counted(__u32 tgid, __u32 nr) {
  __u32 zero = 0;
  struct sonde_summary_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (!cfg || tgid == cfg->self_tgid) return 0;
  if (cfg->mode != SONDE_SUMMARY_ALL && !sonde_recorded_tgid(tgid) && !sonde_adopt_if_pending(tgid)) return 0;
  if (cfg->filtered) {
    __u8 *w = bpf_map_lookup_elem(&wanted, &nr);
    if (!w || !*w) return 0;
  }
  return cfg;
}

#define SONDE_NR_EXECVE 59
#define SONDE_NR_EXECVEAT 322

/* The forked command before its exec is still sonde's code (waiting for
 * the go, closing descriptors): like perf's enable_on_exec events, its
 * calls count from the execve on, the execve timed from its entry. */
static __always_inline int workload_execs(__u32 tgid, __u32 nr) {
  __u32 zero = 0;
  struct sonde_summary_config *cfg = bpf_map_lookup_elem(&config, &zero);
  return cfg && cfg->workload && tgid == cfg->workload && (nr == SONDE_NR_EXECVE || nr == SONDE_NR_EXECVEAT);
}

SEC("raw_tracepoint/sys_enter")
int sonde_summary_enter(struct bpf_raw_tracepoint_args *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 nr = (__u32)ctx->args[1];
  if (!counted(id >> 32, nr) && !workload_execs(id >> 32, nr)) return 0;
  __u32 tid = (__u32)id;
  struct start s = {bpf_ktime_get_ns(), nr};
  if (bpf_map_update_elem(&starts, &tid, &s, BPF_ANY) != 0) count_drop(SONDE_SUMMARY_NO_START);
  return 0;
}

static __always_inline void add_call(struct sonde_summary_stats *st, __u64 d, long ret, __u64 now) {
  st->calls += 1;
  if (ret < 0) st->errors += 1;
  st->total_ns += d;
  if (st->calls == 1 || d < st->min_ns) st->min_ns = d;
  if (d > st->max_ns) st->max_ns = d;
  sonde_summary_add_square(&st->squares_hi, &st->squares_lo, d);
  st->last_ns = now;
  bpf_get_current_comm(st->comm, sizeof st->comm);
}

SEC("raw_tracepoint/sys_exit")
int sonde_summary_exit(struct bpf_raw_tracepoint_args *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)id;
  struct start *s = bpf_map_lookup_elem(&starts, &tid);
  if (!s) return 0; /* entered before the program was attached, or not counted */
  __u64 now = bpf_ktime_get_ns(), d = now - s->ns;
  __u32 zero = 0;
  struct sonde_summary_config *cfg = bpf_map_lookup_elem(&config, &zero);
  struct sonde_summary_key key = {tid, (__u32)s->nr, 0};
  if (cfg && cfg->aggregate == SONDE_SUMMARY_BY_TOTAL) key.owner = 0;
  if (cfg && cfg->aggregate == SONDE_SUMMARY_BY_CGROUP) key.owner = bpf_get_current_cgroup_id();
  bpf_map_delete_elem(&starts, &tid);
  struct sonde_summary_stats *st = bpf_map_lookup_elem(&stats, &key);
  if (!st) {
    struct sonde_summary_stats fresh = {};
    fresh.pid = id >> 32;
    if (bpf_map_update_elem(&stats, &key, &fresh, BPF_NOEXIST) != 0 && bpf_map_lookup_elem(&stats, &key) == 0) {
      count_drop(SONDE_SUMMARY_NO_SLOT);
      return 0;
    }
    st = bpf_map_lookup_elem(&stats, &key);
    if (!st) return 0;
  }
  add_call(st, d, (long)ctx->args[1], now);
  return 0;
}

SEC("raw_tracepoint/task_newtask")
int sonde_summary_fork(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_summary_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (cfg && cfg->mode != SONDE_SUMMARY_ALL) sonde_follow_fork(ctx);
  return 0;
}

/* The command's exec succeeded: from now on it is followed. */
SEC("raw_tracepoint/sched_process_exec")
int sonde_summary_exec(struct bpf_raw_tracepoint_args *ctx) {
  (void)ctx;
  __u32 zero = 0, tgid = bpf_get_current_pid_tgid() >> 32;
  struct sonde_summary_config *cfg = bpf_map_lookup_elem(&config, &zero);
  __u8 one = 1;
  if (cfg && cfg->workload && tgid == cfg->workload) bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY);
  return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int sonde_summary_task_exit(struct bpf_raw_tracepoint_args *ctx) {
  (void)ctx;
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  bpf_map_delete_elem(&starts, &tid); /* exit_group never returns */
  sonde_forget_exiting();
  return 0;
}
