/* Following the recorded processes' children in BPF, shared by the SDT
 * program (probe/sdt.bpf.c) and the off-CPU program (offcpu/offcpu.bpf.c).
 *
 * `tgids` holds the recorded processes (the target or workload, filled by
 * the loader, and every adopted child). A fork is seen on task_newtask, in
 * the parent inside copy_process, before the child first runs. A raw
 * tracepoint only gets the child's task pointer, not its pid, so the child
 * is remembered by that pointer in `pending` (an opaque identity, never
 * dereferenced) and adopted by tgid the first time it is seen as the
 * current task: by the program's own event, or by its first clone. This
 * replaces a walk up task->real_parent, which needed CO-RE and so vmlinux
 * BTF parsing at every load (~20 ms); a tracefs tracepoint would give the
 * pid, but releasing a perf tracepoint event waits for RCU grace periods
 * (~85 ms at teardown), a raw tracepoint link does not. A task that exits
 * before it was adopted leaves `pending`: its memory may be reused by an
 * unrelated process. */
#pragma once

#define SONDE_CLONE_THREAD 0x00010000ULL

/* A set of ids (pids, tids) the loader fills: 16384 at most, allocated as
 * filled. Creating a 65536-entry hash (its bucket array) took ~0.6 ms of a
 * ~3 ms load. */
#define SONDE_ID_SET(name)                 \
  struct {                                 \
    __uint(type, BPF_MAP_TYPE_HASH);       \
    __uint(max_entries, 16384);            \
    __uint(map_flags, BPF_F_NO_PREALLOC);  \
    __type(key, __u32);                    \
    __type(value, __u8);                   \
  } name SEC(".maps")

SONDE_ID_SET(tgids);

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u64);
  __type(value, __u8);
} pending SEC(".maps");

static __always_inline int sonde_recorded_tgid(__u32 tgid) { return bpf_map_lookup_elem(&tgids, &tgid) != 0; }

/* The current task is a child not adopted yet: adopt its process now. */
static __always_inline int sonde_adopt_if_pending(__u32 tgid) {
  __u64 self = bpf_get_current_task();
  if (!bpf_map_lookup_elem(&pending, &self)) return 0;
  __u8 one = 1;
  bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY);
  bpf_map_delete_elem(&pending, &self);
  return 1;
}

/* task_newtask: args[0] is the child's task, args[1] the clone flags. A
 * recorded process (or a pending child, adopted here so that its threads
 * are recorded too) that starts a process makes that child pending; a new
 * thread has its process's tgid already. */
static __always_inline void sonde_follow_fork(struct bpf_raw_tracepoint_args *ctx) {
  __u32 parent = bpf_get_current_pid_tgid() >> 32;
  if (!sonde_recorded_tgid(parent) && !sonde_adopt_if_pending(parent)) return;
  if (ctx->args[1] & SONDE_CLONE_THREAD) return;
  __u64 child = ctx->args[0];
  __u8 one = 1;
  bpf_map_update_elem(&pending, &child, &one, BPF_ANY);
}

/* sched_process_exit: the exiting task leaves `pending`. */
static __always_inline void sonde_forget_exiting(void) {
  __u64 self = bpf_get_current_task();
  bpf_map_delete_elem(&pending, &self);
}
