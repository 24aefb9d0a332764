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

#include "cfi/cfi_walk.bpf.h"

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

static __always_inline void add(__u32 stat, __u64 n) {
  __u64 *v = bpf_map_lookup_elem(&stats, &stat);
  if (v && n) __sync_fetch_and_add(v, n);
}
static __always_inline void count(__u32 stat) { add(stat, 1); }

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
  __u32 zero = 0;
  struct sonde_cfi_config *cfg = bpf_map_lookup_elem(&config, &zero);
  struct sonde_cfi_regs start = {.ip = r.ip, .sp = r.sp, .bp = r.bp};
  struct walk *w = sonde_cfi_walk_user(s->ips, s->nr_kernel, tgid, &start, cfg ? cfg->max_user : SONDE_CFI_MAX_FRAMES,
                                       s->time);
  if (!w) return;
  s->nr_user = w->n > s->nr_kernel ? w->n - s->nr_kernel : 0;
  s->stop = w->stop;
  s->flags |= w->flags;
  add(SONDE_CFI_STAT_CFI_FRAMES, w->cfi_frames);
  add(SONDE_CFI_STAT_FP_FRAMES, w->fp_frames);
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
  if (s->flags & SONDE_CFI_SAMPLE_NO_TABLE) count(SONDE_CFI_STAT_NO_TABLE);
  __u64 n = (__u64)s->nr_kernel + s->nr_user;
  if (n > SONDE_CFI_MAX_FRAMES) n = SONDE_CFI_MAX_FRAMES;
  if (bpf_ringbuf_output(&events, s, __builtin_offsetof(struct sonde_cfi_sample, ips) + n * sizeof(__u64), 0) != 0)
    count(SONDE_CFI_STAT_RING_FULL);
  return 0;
}
