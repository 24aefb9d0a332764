/* The CFI unwinder: a perf_event program attached to the recorder's
 * sampling event. On each sample it takes the kernel part of the chain from
 * the kernel (the event's own callchain, kernel frames only), then walks the
 * user stack with the unwind tables the recorder compiled from the objects'
 * .eh_frame (cfi_abi.h): per frame, the mapping holding pc (a binary search
 * in the process's sorted mappings), the table row covering it (a binary
 * search in the table's rows), then CFA = rsp/rbp + offset, return address
 * at CFA-8, rbp restored from CFA-8n when saved. Code with no CFI is walked
 * by its frame pointer. The sample goes to the ring buffer, and the
 * program returns 0 so that the kernel writes none of its own: the recorder
 * writes this one (cfi_sample.h) in the event's layout. docs/cfi.md. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "cfi_abi.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_cfi_config);
} config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, SONDE_CFI_NSTATS);
  __type(key, __u32);
  __type(value, __u64);
} stats SEC(".maps");

/* Executable mappings by thread-group id (the recorder keeps them). */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, struct sonde_cfi_process);
} processes SEC(".maps");

/* Tables by index, and all their rows (sizes set by the loader). */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_cfi_table);
} tables SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} rows SEC(".maps");

/* Where a sample is built (a BPF stack holds 512 bytes). */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_cfi_sample);
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24); /* 16 MiB: seconds of samples at -F max */
} events SEC(".maps");

/* Processes whose mappings the recorder should read again (a sample in
 * a process it does not know, or at a pc in no mapping it knows): their
 * tgids, at most one per process per SONDE_CFI_ASK_NS (asked). The
 * recorder's table worker waits on this ring. */
struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 16);
} requests SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32);
  __type(value, __u64);
} asked SEC(".maps");

#define SONDE_CFI_ASK_NS 2000000ULL /* 2 ms: ld.so maps a library after another at start-up */

static __always_inline void ask_for_mappings(__u32 tgid, __u64 now) {
  __u64 *last = bpf_map_lookup_elem(&asked, &tgid);
  if (last && now - *last < SONDE_CFI_ASK_NS) return;
  bpf_map_update_elem(&asked, &tgid, &now, BPF_ANY);
  bpf_ringbuf_output(&requests, &tgid, sizeof tgid, 0);
}

/* The kernel's x86-64 struct pt_regs, and struct bpf_perf_event_data. */
struct sonde_x86_pt_regs {
  __u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
struct sonde_perf_ctx {
  struct sonde_x86_pt_regs regs;
  __u64 sample_period;
  __u64 addr;
};

#define SONDE_PERF_CONTEXT_MAX ((__u64)-4095)
#define SONDE_MISC_KERNEL 1
#define SONDE_MISC_USER 2

static __always_inline void count(__u32 stat) {
  __u64 *v = bpf_map_lookup_elem(&stats, &stat);
  if (v) __sync_fetch_and_add(v, 1);
}

/* The user walk's state, shared with each bpf_loop step. */
struct walk {
  struct sonde_cfi_sample *s;
  struct sonde_cfi_process *proc;
  __u64 pc, sp, bp;
  __u32 stop;
};

/* Binary searches run as bpf_loop callbacks: the verifier checks a step
 * once instead of every path through an unrolled search. */
struct mapping_search {
  struct sonde_cfi_process *p;
  __u64 pc;
  __u32 lo, hi; /* the answer is the last mapping before lo */
};

static long mapping_step(__u64 i, void *ctx) {
  struct mapping_search *q = ctx;
  if (q->lo >= q->hi) return 1;
  __u32 mid = q->lo + (q->hi - q->lo) / 2;
  if (mid >= SONDE_CFI_MAX_MAPPINGS) return 1;
  if (q->p->m[mid & (SONDE_CFI_MAX_MAPPINGS - 1)].start <= q->pc) q->lo = mid + 1;
  else q->hi = mid;
  return 0;
}

/* The mapping holding pc, or 0. */
static __always_inline struct sonde_cfi_mapping *find_mapping(struct sonde_cfi_process *p, __u64 pc) {
  struct mapping_search q = {.p = p, .pc = pc, .lo = 0, .hi = p->count};
  if (q.hi > SONDE_CFI_MAX_MAPPINGS) q.hi = SONDE_CFI_MAX_MAPPINGS;
  bpf_loop(9, mapping_step, &q, 0); /* 2^9 > SONDE_CFI_MAX_MAPPINGS */
  __u32 at = q.lo - 1;
  if (q.lo == 0 || at >= SONDE_CFI_MAX_MAPPINGS) return 0;
  struct sonde_cfi_mapping *m = &p->m[at & (SONDE_CFI_MAX_MAPPINGS - 1)]; /* a power of two: bounds the verifier sees */
  return pc < m->end ? m : 0;
}

struct row_search {
  __u32 first, pc;
  __u32 lo, hi; /* the answer is the last row before lo */
};

static long row_step(__u64 i, void *ctx) {
  struct row_search *q = ctx;
  if (q->lo >= q->hi) return 1;
  __u32 mid = q->lo + (q->hi - q->lo) / 2;
  __u32 key = q->first + mid;
  __u64 *r = bpf_map_lookup_elem(&rows, &key);
  if (!r) return 1;
  if (SONDE_ROW_PC(*r) <= q->pc) q->lo = mid + 1;
  else q->hi = mid;
  return 0;
}

/* The row covering link-time address `vaddr` in table `index`; a NONE row
 * when there is none. */
static __always_inline __u64 find_row(__u32 index, __u64 vaddr) {
  struct sonde_cfi_table *t = bpf_map_lookup_elem(&tables, &index);
  if (!t || vaddr < t->base || vaddr - t->base > 0xffffffffULL) return 0;
  struct row_search q = {.first = t->first, .pc = (__u32)(vaddr - t->base), .lo = 0, .hi = t->count};
  bpf_loop(33, row_step, &q, 0); /* 2^32 rows at most */
  if (q.lo == 0) return 0;
  __u32 key = q.first + q.lo - 1;
  __u64 *r = bpf_map_lookup_elem(&rows, &key);
  return r ? *r : 0;
}

/* The rule for the current frame: its table's row, or a frame-pointer
 * row (CFA = rbp + 16, rbp saved at CFA - 16) where there is no table. */
static __always_inline __u64 rule_for(struct walk *w, __u64 index) {
  struct sonde_cfi_mapping *m = find_mapping(w->proc, w->pc);
  __u64 none = SONDE_ROW(0, SONDE_CFA_NONE, 0, SONDE_RBP_SAME, 0);
  if (!m) {
    /* The sampled pc in no mapping we know: one the recorder has not seen
     * yet (JIT code too, which the frame pointer may get through). */
    if (index == 0) w->s->flags |= SONDE_CFI_SAMPLE_NO_TABLE;
    return none;
  }
  if (m->table == SONDE_CFI_NO_TABLE) return none; /* an object without CFI */
  /* A return address is just after its call: look up the call itself. */
  __u64 lookup = index ? w->pc - 1 : w->pc;
  return find_row(m->table, lookup - m->bias);
}

/* The CFA of the current frame by `row`, or 0 with w->stop set. */
static __always_inline __u64 cfa_of(struct walk *w, __u64 row, __u32 *rbp_slot) {
  __u32 off = SONDE_ROW_OFFSET(row);
  *rbp_slot = SONDE_ROW_RBP(row) == SONDE_RBP_SAVED ? SONDE_ROW_RBP_SLOT(row) : 0;
  switch (SONDE_ROW_CFA(row)) {
    case SONDE_CFA_RSP: count(SONDE_CFI_STAT_CFI_FRAMES); return w->sp + off;
    case SONDE_CFA_RBP: count(SONDE_CFI_STAT_CFI_FRAMES); return w->bp + off;
    case SONDE_CFA_PLT: count(SONDE_CFI_STAT_CFI_FRAMES); return w->sp + 8 + ((w->pc & 15) >= off ? 8 : 0);
    case SONDE_CFA_NONE:
      if (w->bp == 0) break; /* the end of a frame-pointer chain */
      count(SONDE_CFI_STAT_FP_FRAMES);
      *rbp_slot = 2;
      return w->bp + 16;
    case SONDE_CFA_END: break;
    default: w->stop = SONDE_STOP_UNSUPPORTED; return 0;
  }
  w->stop = SONDE_STOP_ROOT;
  return 0;
}

/* One frame up; 1 to stop. */
static long step(__u64 index, void *ctx) {
  struct walk *w = ctx;
  struct sonde_cfi_sample *s = w->s;
  __u32 slot = 0;
  __u64 cfa = cfa_of(w, rule_for(w, index), &slot);
  if (!cfa) return 1;
  __u64 ra = 0, bp = w->bp;
  if (cfa <= w->sp) {
    w->stop = SONDE_STOP_BAD_FRAME;
    return 1;
  }
  if (bpf_probe_read_user(&ra, sizeof ra, (void *)(cfa - 8)) != 0 ||
      (slot && bpf_probe_read_user(&bp, sizeof bp, (void *)(cfa - 8 * (__u64)slot)) != 0)) {
    w->stop = SONDE_STOP_READ;
    return 1;
  }
  if (ra == 0) {
    w->stop = SONDE_STOP_ROOT;
    return 1;
  }
  __u32 at = (__u32)s->nr_kernel + s->nr_user;
  if (at >= SONDE_CFI_MAX_FRAMES) {
    w->stop = SONDE_STOP_DEPTH;
    return 1;
  }
  s->ips[at] = ra;
  s->nr_user++;
  w->pc = ra;
  w->sp = cfa;
  w->bp = bp;
  return 0;
}

/* The user registers: the sample's own when it interrupted user code, else
 * those the task entered the kernel with. 0 when it has no user part. */
static __always_inline int user_regs(struct sonde_perf_ctx *ctx, struct sonde_x86_pt_regs *r) {
  if (ctx->regs.cs & 3) {
    r->ip = ctx->regs.ip;
    r->sp = ctx->regs.sp;
    r->bp = ctx->regs.bp;
    return 1;
  }
  long regs = bpf_task_pt_regs(bpf_get_current_task_btf());
  if (!regs || bpf_probe_read_kernel(r, sizeof *r, (void *)regs) != 0) return 0;
  return r->ip != 0 && (r->cs & 3);
}

/* The user part of the chain, after the kernel part already in s. */
static __always_inline void walk_user(struct sonde_perf_ctx *ctx, struct sonde_cfi_sample *s, __u32 tgid) {
  struct sonde_x86_pt_regs r = {};
  if (tgid == 0 || !user_regs(ctx, &r)) {
    s->stop = SONDE_STOP_KERNEL_ONLY;
    return;
  }
  __u32 at = s->nr_kernel;
  if (at >= SONDE_CFI_MAX_FRAMES) {
    s->stop = SONDE_STOP_DEPTH;
    return;
  }
  s->ips[at] = r.ip;
  s->nr_user = 1;
  struct sonde_cfi_process *proc = bpf_map_lookup_elem(&processes, &tgid);
  if (!proc) {
    s->stop = SONDE_STOP_NO_PROCESS;
    s->flags |= SONDE_CFI_SAMPLE_NO_TABLE;
    return;
  }
  struct walk w = {.s = s, .proc = proc, .pc = r.ip, .sp = r.sp, .bp = r.bp, .stop = SONDE_STOP_DEPTH};
  __u32 zero = 0;
  struct sonde_cfi_config *cfg = bpf_map_lookup_elem(&config, &zero);
  __u32 max = cfg ? cfg->max_user : SONDE_CFI_MAX_FRAMES;
  bpf_loop(max, step, &w, 0);
  s->stop = w.stop;
}

SEC("perf_event")
int sonde_cfi_sample(struct sonde_perf_ctx *ctx) {
  __u32 zero = 0;
  struct sonde_cfi_sample *s = bpf_map_lookup_elem(&scratch, &zero);
  if (!s) return 1; /* cannot happen: let the kernel write its own sample */
  count(SONDE_CFI_STAT_SAMPLES);
  __u64 id = bpf_get_current_pid_tgid();
  s->time = bpf_ktime_get_ns();
  s->ip = ctx->regs.ip;
  s->period = ctx->sample_period;
  s->pid = id >> 32;
  s->tid = (__u32)id;
  s->cpu = bpf_get_smp_processor_id();
  s->misc = (ctx->regs.cs & 3) ? SONDE_MISC_USER : SONDE_MISC_KERNEL;
  s->flags = 0;
  s->nr_user = 0;
  long got = bpf_get_stack(ctx, s->ips, SONDE_CFI_MAX_KERNEL * sizeof(__u64), 0);
  s->nr_kernel = got > 0 ? (__u16)(got / sizeof(__u64)) : 0;
  walk_user(ctx, s, s->pid);
  count(s->stop < SONDE_CFI_NSTOPS ? s->stop : SONDE_STOP_DEPTH);
  if (s->flags & SONDE_CFI_SAMPLE_NO_TABLE) {
    count(SONDE_CFI_STAT_NO_TABLE);
    ask_for_mappings(s->pid, s->time);
  }
  __u64 n = (__u64)s->nr_kernel + s->nr_user;
  if (n > SONDE_CFI_MAX_FRAMES) n = SONDE_CFI_MAX_FRAMES;
  if (bpf_ringbuf_output(&events, s, __builtin_offsetof(struct sonde_cfi_sample, ips) + n * sizeof(__u64), 0) != 0)
    count(SONDE_CFI_STAT_RING_FULL);
  return 0;
}
