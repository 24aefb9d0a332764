/* Path strings of system calls, read at entry (perf trace's "augmented"
 * filename arguments): on raw_syscalls' sys_enter, for a followed thread
 * whose call has string arguments (a bitmask per syscall number the loader
 * fills from tracefs' formats), each string is read from user memory while
 * it is still there and sent through a ring buffer with the thread, the
 * call and the argument index. x86-64: the arguments come from pt_regs
 * (di, si, dx, r10, r8, r9), read without BTF or CO-RE. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/follow_forks.bpf.h"
#include "syscall_strings_abi.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_strings_config);
} config SEC(".maps");

/* Per syscall number: bit i set when argument i is a path string. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, SONDE_SYSCALL_SLOTS);
  __type(key, __u32);
  __type(value, __u8);
} string_args SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 22);
} events SEC(".maps");

/* [0]: strings not sent because the ring buffer was full. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} lost SEC(".maps");

/* Offsets in x86-64's struct pt_regs of the syscall arguments. */
static const int arg_offsets[6] = {112, 104, 96, 56, 72, 64};
#define SONDE_PT_REGS_IP 128

SEC("raw_tracepoint/sys_enter")
int sonde_strings_enter(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_strings_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (!cfg) return 0;
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tgid = id >> 32;
  if (tgid == cfg->self_tgid) return 0;
  if (cfg->mode != SONDE_STRINGS_ALL && !sonde_recorded_tgid(tgid) && !sonde_adopt_if_pending(tgid)) return 0;
  __u32 nr = (__u32)ctx->args[1];
  if (nr >= SONDE_SYSCALL_SLOTS) return 0;
  __u8 *mask = bpf_map_lookup_elem(&string_args, &nr);
  if (!mask || !*mask) return 0;
  void *regs = (void *)ctx->args[0];
  for (int i = 0; i < 6; ++i) {
    if (!(*mask & (1 << i))) continue;
    __u64 ptr = 0;
    if (bpf_probe_read_kernel(&ptr, sizeof ptr, regs + arg_offsets[i]) != 0 || !ptr) continue;
    struct sonde_string_event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
    if (!e) {
      __u64 *n = bpf_map_lookup_elem(&lost, &zero);
      if (n) __sync_fetch_and_add(n, 1);
      continue;
    }
    e->pid = tgid;
    e->tid = (__u32)id;
    e->time = bpf_ktime_get_ns();
    e->ip = 0;
    bpf_probe_read_kernel(&e->ip, sizeof e->ip, regs + SONDE_PT_REGS_IP);
    e->nr = nr;
    e->arg = i;
    e->cpu = bpf_get_smp_processor_id();
    e->len = bpf_probe_read_user_str(e->str, sizeof e->str, (const void *)ptr);
    bpf_ringbuf_submit(e, 0);
  }
  return 0;
}

SEC("raw_tracepoint/task_newtask")
int sonde_strings_fork(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_strings_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (cfg && cfg->mode != SONDE_STRINGS_ALL) sonde_follow_fork(ctx);
  return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int sonde_strings_exit(struct bpf_raw_tracepoint_args *ctx) {
  (void)ctx;
  sonde_forget_exiting();
  return 0;
}
