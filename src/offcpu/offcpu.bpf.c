/* The off-CPU program: on every scheduler switch (a raw tracepoint, so no
 * BTF or CO-RE is needed), a followed thread that goes off CPU has its time,
 * its user and kernel stacks (stack map ids, taken while it is still the
 * current task) and why it left (runnable or blocked) remembered by task
 * pointer; when that task comes back, the blocked nanoseconds go either to
 * the ring buffer (one event per block at or above the threshold) or into
 * the sums map per (thread, stacks, kind), which the recorder drains at
 * least every 100 ms. Threads are filtered here, in the kernel: only the
 * recorded processes and their children pay for a stack walk.
 * With --call-graph dwarf, each switch-out also copies the user registers
 * and the top of the user stack (by task pointer, in `copies`); a long
 * block goes out with that copy, which the report unwinds with the
 * objects' CFI (frame-pointer stacks stop in libraries built without them). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/follow_forks.bpf.h"
#include "cfi/cfi_walk.bpf.h"
#include "offcpu_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* prev_state bits of a task that will never run again. */
#define SONDE_TASK_DEAD_STATES (0x0010 | 0x0020 | 0x0080) /* EXIT_DEAD, EXIT_ZOMBIE, TASK_DEAD */

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_offcpu_config);
} config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, SONDE_OFFCPU_NSTATS);
  __type(key, __u32);
  __type(value, __u64);
} stats SEC(".maps");

/* -t threads by tid (processes are in follow_forks.bpf.h's `tgids`). */
SONDE_ID_SET(tids);

/* Followed threads that are off CPU now, by task pointer. Preallocated:
 * the switch path does no allocation. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 32768);
  __type(key, __u64);
  __type(value, struct sonde_offcpu_start);
} starts SEC(".maps");

/* Short blocks summed per key, in two maps: the program adds into the one
 * `sums_slot` names, the recorder empties the other. A sum emptied while
 * the program held a pointer into it would lose that addition (or, its
 * element reused, add it to another key); the recorder switches the slot
 * at each flush and empties a map only at the next one, 50 ms after the
 * program last wrote to it. */
#define SONDE_SUMS_MAP(name)                      \
  struct {                                        \
    __uint(type, BPF_MAP_TYPE_HASH);              \
    __uint(max_entries, 16384);                   \
    __type(key, struct sonde_offcpu_key);         \
    __type(value, struct sonde_offcpu_sum);       \
  } name SEC(".maps")
SONDE_SUMS_MAP(sums0);
SONDE_SUMS_MAP(sums1);

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} sums_slot SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 16384);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, SONDE_OFFCPU_MAX_FRAMES * sizeof(__u64));
} stacks SEC(".maps");

/* --call-graph dwarf: the user stack copy of each followed thread that is
 * off CPU now, by task pointer. Preallocated (max_entries set by the
 * loader: 1 without dwarf); `scratch` is where a copy is built, since a
 * BPF stack holds 512 bytes. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u64);
  __type(value, struct sonde_offcpu_stack_event);
} copies SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_offcpu_stack_event);
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 20);
} events SEC(".maps");

/* --call-graph cfi: user stacks the CFI walker found, by id (see
 * cfi_user_stack); the walker's maps are the cfi sampling program's,
 * reused by fd (cfi_walk.bpf.h). max_entries 1 without cfi. */
struct sonde_offcpu_cfi_stack {
  __u32 nr;
  __u32 pad;
  __u64 ips[SONDE_CFI_MAX_FRAMES];
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, struct sonde_offcpu_cfi_stack);
} cfi_stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_offcpu_cfi_stack);
} cfi_scratch SEC(".maps");

static __always_inline void count(__u32 stat) {
  __u64 *v = bpf_map_lookup_elem(&stats, &stat);
  if (v) __sync_fetch_and_add(v, 1);
}

/* Is the current task one we follow? A child forked by a recorded process
 * is adopted (by tgid) the first time it is switched out. */
static __always_inline int wanted(const struct sonde_offcpu_config *cfg, __u32 tgid, __u32 tid) {
  if (tid == 0) return 0; /* the idle task */
  if (cfg->mode == SONDE_OFFCPU_ALL) return tgid != cfg->self_tgid;
  if (sonde_recorded_tgid(tgid) || bpf_map_lookup_elem(&tids, &tid)) return 1;
  return sonde_adopt_if_pending(tgid);
}

static __always_inline void send_one(const struct sonde_offcpu_key *key, __u64 now, __u64 ns) {
  struct sonde_offcpu_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) {
    count(SONDE_OFFCPU_STAT_RING_FULL);
    return;
  }
  e->time = now;
  e->ns = ns;
  e->key = *key;
  e->cpu = bpf_get_smp_processor_id();
  e->pad = 0;
  bpf_ringbuf_submit(e, 0);
}

/* Returns 0 when `sums` is full. */
static __always_inline int add_to_sums_map(void *sums, const struct sonde_offcpu_key *key, __u64 ns) {
  struct sonde_offcpu_sum *s = bpf_map_lookup_elem(sums, key);
  if (s) {
    __sync_fetch_and_add(&s->ns, ns);
    __sync_fetch_and_add(&s->count, 1);
    s->cpu = bpf_get_smp_processor_id();
    return 1;
  }
  struct sonde_offcpu_sum first = {.ns = ns, .count = 1, .cpu = bpf_get_smp_processor_id()};
  if (bpf_map_update_elem(sums, key, &first, BPF_NOEXIST) == 0) return 1;
  s = bpf_map_lookup_elem(sums, key); /* another CPU inserted it meanwhile */
  if (s) {
    __sync_fetch_and_add(&s->ns, ns);
    __sync_fetch_and_add(&s->count, 1);
    return 1;
  }
  return 0;
}

static __always_inline void add_to_sums(const struct sonde_offcpu_key *key, __u64 now, __u64 ns) {
  __u32 zero = 0;
  __u32 *slot = bpf_map_lookup_elem(&sums_slot, &zero);
  int added = slot && *slot ? add_to_sums_map(&sums1, key, ns) : add_to_sums_map(&sums0, key, ns);
  if (added) return;
  count(SONDE_OFFCPU_STAT_SUMS_FULL); /* full: this block goes out alone */
  send_one(key, now, ns);
}

/* The kernel's x86-64 struct pt_regs (arch/x86/include/asm/ptrace.h): the
 * user registers saved at kernel entry, at the top of the task's stack. */
struct sonde_x86_pt_regs {
  __u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

/* One try to copy `want` (at most SONDE_OFFCPU_STACK_MAX) bytes from sp. */
static __always_inline __u32 try_read(__u8 *to, __u32 want, __u64 sp) {
  if (want > SONDE_OFFCPU_STACK_MAX) want = SONDE_OFFCPU_STACK_MAX;
  return want && bpf_probe_read_user(to, want, (void *)sp) == 0 ? want : 0;
}

/* The most of `want` bytes of user stack readable from sp, in halves down
 * to an eighth (a stack top near the end of its mapping); 0 if none. */
static __always_inline __u32 read_user_stack(__u8 *to, __u32 want, __u64 sp) {
  __u32 got = try_read(to, want, sp);
  if (!got) got = try_read(to, want / 2, sp);
  if (!got) got = try_read(to, want / 4, sp);
  if (!got) got = try_read(to, want / 8, sp);
  return got;
}

/* Copies the current task's user registers and up to cfg->stack_bytes of
 * its user stack into `copies` under `task`. A stack whose top is nearer
 * than that to the end of its mapping is copied in halves until it fits. */
static __always_inline void copy_user_stack(const struct sonde_offcpu_config *cfg, __u64 task) {
  __u32 zero = 0;
  struct sonde_offcpu_stack_event *c = bpf_map_lookup_elem(&scratch, &zero);
  if (!c) return;
  struct sonde_x86_pt_regs r;
  long regs = bpf_task_pt_regs(bpf_get_current_task_btf());
  if (!regs || bpf_probe_read_kernel(&r, sizeof r, (void *)regs) != 0) {
    count(SONDE_OFFCPU_STAT_NO_USER);
    return;
  }
  __u64 perf_order[SONDE_OFFCPU_NREGS] = {r.ax, r.bx, r.cx, r.dx, r.si, r.di, r.bp, r.sp, r.ip, r.flags,
                                          r.cs, r.ss, r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15};
  __builtin_memcpy(c->regs, perf_order, sizeof perf_order);
  c->stack_size = read_user_stack(c->stack, cfg->stack_bytes, r.sp);
  /* An exiting thread has released its memory: nothing to copy. */
  if (!c->stack_size)
    count(SONDE_OFFCPU_STAT_NO_USER);
  else if (bpf_map_update_elem(&copies, &task, c, BPF_ANY) != 0)
    count(SONDE_OFFCPU_STAT_COPIES_FULL);
}

/* --call-graph cfi: the current task's user stack walked with the CFI
 * tables, kept in cfi_stacks; its id (a hash of the frames with
 * SONDE_OFFCPU_CFI_STACK_BIT), or the frame-pointer stack's id when
 * another stack holds that id, or negative when there is no user part. */
static __always_inline __s32 cfi_user_stack(void *ctx, __u32 tgid, __u64 now) {
  __u32 zero = 0;
  struct sonde_offcpu_cfi_stack *c = bpf_map_lookup_elem(&cfi_scratch, &zero);
  struct sonde_x86_pt_regs r;
  long regs = bpf_task_pt_regs(bpf_get_current_task_btf());
  if (!c || !regs || bpf_probe_read_kernel(&r, sizeof r, (void *)regs) != 0 || !(r.cs & 3)) return -14;
  struct sonde_cfi_regs start = {.ip = r.ip, .sp = r.sp, .bp = r.bp};
  struct walk *w = sonde_cfi_walk_user((__u64 *)c->ips, 0, tgid, &start, SONDE_CFI_MAX_FRAMES, now);
  if (!w) return -14;
  __u32 n = w->n;
  if (n > SONDE_CFI_MAX_FRAMES) n = SONDE_CFI_MAX_FRAMES;
  c->nr = n;
  c->pad = 0;
  __u64 h = 14695981039346656037ULL; /* FNV-1a over the frames */
  for (int i = 0; i < SONDE_CFI_MAX_FRAMES; i++) {
    if (i >= n) break;
    h = (h ^ c->ips[i]) * 1099511628211ULL;
  }
  __u32 id = ((__u32)(h ^ (h >> 32)) & (SONDE_OFFCPU_CFI_STACK_BIT - 1)) | SONDE_OFFCPU_CFI_STACK_BIT;
  if (bpf_map_update_elem(&cfi_stacks, &id, c, BPF_NOEXIST) == 0) return (__s32)id;
  struct sonde_offcpu_cfi_stack *old = bpf_map_lookup_elem(&cfi_stacks, &id);
  if (old && old->nr == n && n > 0 && old->ips[0] == c->ips[0] && old->ips[(n - 1) & 127] == c->ips[(n - 1) & 127])
    return (__s32)id;
  count(SONDE_OFFCPU_STAT_CFI_COLLISION);
  return bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
}

/* Sends a long block with its user stack copy; false when it has none. */
static __always_inline int send_with_copy(const struct sonde_offcpu_key *key, __u64 task, __u64 now, __u64 ns) {
  struct sonde_offcpu_stack_event *c = bpf_map_lookup_elem(&copies, &task);
  if (!c) return 0;
  c->e.time = now;
  c->e.ns = ns;
  c->e.key = *key;
  c->e.cpu = bpf_get_smp_processor_id();
  c->e.pad = 0;
  __u64 n = c->stack_size;
  if (n > SONDE_OFFCPU_STACK_MAX) n = SONDE_OFFCPU_STACK_MAX;
  if (bpf_ringbuf_output(&events, c, __builtin_offsetof(struct sonde_offcpu_stack_event, stack) + n, 0) != 0)
    count(SONDE_OFFCPU_STAT_RING_FULL);
  return 1;
}

/* TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next,
 * unsigned int prev_state) since Linux 5.18. The current task is still prev. */
SEC("raw_tracepoint/sched_switch")
int sonde_offcpu_switch(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_offcpu_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (!cfg) return 0;
  __u64 now = bpf_ktime_get_ns();
  __u64 prev = ctx->args[1], next = ctx->args[2];
  if (prev != bpf_get_current_task()) {
    count(SONDE_OFFCPU_STAT_BAD_ARGS); /* another argument layout: record nothing wrong */
    return 0;
  }
  __u32 prev_state = (__u32)ctx->args[3];

  __u64 id = bpf_get_current_pid_tgid();
  __u32 tgid = id >> 32, tid = (__u32)id;
  if (!(prev_state & SONDE_TASK_DEAD_STATES) && wanted(cfg, tgid, tid)) {
    struct sonde_offcpu_start s = {};
    s.time = now;
    s.pid = tgid;
    s.tid = tid;
    /* A preempted task, or one switched out while still TASK_RUNNING,
     * stays on the run queue: it waits for a CPU, not for an event. */
    s.kind = (ctx->args[0] || prev_state == 0) ? SONDE_OFFCPU_PREEMPT : SONDE_OFFCPU_BLOCKED;
    /* FAST_STACK_CMP: a stack already in the map is found by its hash
     * alone, without comparing every frame (the common case: a thread
     * blocks in the same few places). */
    s.kernel_stack = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP);
    s.user_stack = cfg->cfi_user ? cfi_user_stack(ctx, tgid, now)
                                 : bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
    /* -EEXIST: another stack took this one's bucket, and the block goes
     * out without those frames, counted. (A user stack is also missing,
     * as -EFAULT, for a thread not in user space yet or any more: that is
     * no loss.) */
    if (s.kernel_stack < 0 || s.user_stack == -17) count(SONDE_OFFCPU_STAT_NO_STACK);
    /* One map operation in the common case. -EEXIST: still off CPU by our
     * account, yet switching out: the kernel never reported its switch-in
     * (seen on 6.18, by perf's tracefs event too). That block's end is
     * unknown: it is dropped, and counted. */
    long err = bpf_map_update_elem(&starts, &prev, &s, BPF_NOEXIST);
    if (err == -17) {
      count(SONDE_OFFCPU_STAT_NO_SWITCH_IN);
      err = bpf_map_update_elem(&starts, &prev, &s, BPF_ANY);
    }
    if (err != 0)
      count(SONDE_OFFCPU_STAT_STARTS_FULL);
    else if (cfg->stack_bytes)
      copy_user_stack(cfg, prev);
  }

  struct sonde_offcpu_start *s = bpf_map_lookup_elem(&starts, &next);
  if (!s) return 0;
  struct sonde_offcpu_key key = {
      .pid = s->pid, .tid = s->tid, .user_stack = s->user_stack, .kernel_stack = s->kernel_stack, .kind = s->kind};
  __u64 ns = now > s->time ? now - s->time : 0;
  bpf_map_delete_elem(&starts, &next);
  if (ns < cfg->thresh_ns)
    add_to_sums(&key, now, ns);
  else if (!cfg->stack_bytes || !send_with_copy(&key, next, now, ns))
    send_one(&key, now, ns);
  if (cfg->stack_bytes) bpf_map_delete_elem(&copies, &next);
  return 0;
}

SEC("raw_tracepoint/task_newtask")
int sonde_offcpu_fork(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_offcpu_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (cfg && cfg->mode != SONDE_OFFCPU_ALL) sonde_follow_fork(ctx);
  return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int sonde_offcpu_exit(struct bpf_raw_tracepoint_args *ctx) {
  (void)ctx;
  sonde_forget_exiting();
  return 0;
}
