/* The one BPF program behind every SDT probe sonde records. It is attached
 * through BPF uprobe_multi links (one per object file) or, on kernels
 * without them, through one uprobe perf event per site; either way the
 * cookie of a site is its index in the `sites` map, which holds the parsed
 * argument recipe. It reads each argument as the note's spec says (register,
 * sub-register, immediate, memory operand, rip-relative global), applies size
 * and sign (following pointer chains, reading strings), and emits a struct
 * sonde_sdt_raw, then its strings' bytes, through a PERF_EVENT_ARRAY of
 * per-CPU bpf-output events that the recorder drains like any other. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/follow_forks.bpf.h"
#include "sdt_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* x86-64 user registers as the uprobe handler sees them (struct pt_regs). */
#define NREGS 21
#define REG_IP 16

struct sonde_regs {
  __u64 r[NREGS];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* Site recipes by cookie. An array sized by the recorder before loading
 * (the sites it attaches plus room for dlopen'ed libraries) and filled with
 * one batch update: a 65536-entry hash map cost ~5 ms to create and one
 * syscall per site; an array of per-link arrays was worse (every update of
 * a map-in-map waits for an RCU grace period). */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1); /* set at load time */
  __type(key, __u32);
  __type(value, struct sonde_sdt_site_spec);
} sites SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_sdt_config);
} config SEC(".maps");

/* Is the current process one we record? (bpf/follow_forks.bpf.h: the
 * targets, the workload and their adopted children.) */
static __always_inline int wanted(void) {
  __u32 zero = 0;
  struct sonde_sdt_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (!cfg || !cfg->filter_tgids) return 1;
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  return sonde_recorded_tgid(tgid) || sonde_adopt_if_pending(tgid);
}

SEC("raw_tracepoint/task_newtask")
int sonde_sdt_fork(struct bpf_raw_tracepoint_args *ctx) {
  __u32 zero = 0;
  struct sonde_sdt_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (cfg && cfg->filter_tgids) sonde_follow_fork(ctx);
  return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int sonde_sdt_exit(struct bpf_raw_tracepoint_args *ctx) {
  (void)ctx;
  sonde_forget_exiting();
  return 0;
}

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_sdt_scratch);
} scratch SEC(".maps");

/* The address of a memory argument: base + index*scale + disp (or the probe
 * ip + disp), then one pointer read per deref (`a->b->c`). 0 when a pointer
 * read faults. */
static __always_inline __u64 arg_address(const struct sonde_sdt_arg_spec *a, const struct sonde_regs *regs) {
  __u8 base = a->base, index = a->index;
  __u64 addr = (__u64)a->disp;
  if (a->kind == SONDE_SDT_ARG_RIP) {
    addr += regs->r[REG_IP];
  } else {
    if (base < NREGS) addr += regs->r[base];
    if (index < NREGS) addr += regs->r[index] * a->scale;
  }
  for (int j = 0; j < SONDE_SDT_MAX_DEREFS; j++) {
    if (j >= a->nderefs) break;
    __u64 p = 0;
    if (bpf_probe_read_user(&p, sizeof p, (const void *)addr) != 0) return 0;
    addr = p + (__s64)a->derefs[j];
  }
  return addr;
}

/* A string argument: its bytes appended after the header; the value says
 * where (offset | length << 32). False when the read faults. */
static __always_inline int read_string(struct sonde_sdt_scratch *s, __u64 addr, __u64 *v) {
  __u32 off = s->str_used;
  if (off > SONDE_SDT_STR_AREA - SONDE_SDT_STR_MAX) off = SONDE_SDT_STR_AREA - SONDE_SDT_STR_MAX;
  long n = bpf_probe_read_user_str(&s->str[off], SONDE_SDT_STR_MAX, (const void *)addr);
  if (n <= 0) return 0;
  *v = (__u64)off | ((__u64)(n - 1) << 32);
  s->str_used = off + (__u32)n;
  return 1;
}

/* Reads argument `i` of a site into raw.types[i] / raw.values[i]. A global
 * (non-static, not inlined) function: the verifier checks it once, on its
 * own, instead of once per argument slot and per path through the caller's
 * loop (inlined, the loop cost ~8,000 verified instructions and ~9 ms of
 * load time; this way a few hundred). */
__attribute__((noinline)) int sonde_sdt_arg(const struct sonde_sdt_site_spec *spec, const struct sonde_regs *regs,
                                            struct sonde_sdt_scratch *s, __u32 i) {
  if (!spec || !regs || !s || i >= SONDE_SDT_MAX_ARGS) return 0;
  const struct sonde_sdt_arg_spec *a = &spec->args[i];
  __u8 type = a->type;
  __u8 size = type & SONDE_SDT_TYPE_SIZE_MASK;
  __u64 v = 0;
  switch (a->kind) {
    case SONDE_SDT_ARG_IMM:
      v = (__u64)a->disp;
      break;
    case SONDE_SDT_ARG_REG:
      if (a->base < NREGS) v = regs->r[a->base] >> (a->shift & 63);
      break;
    case SONDE_SDT_ARG_MEM:
    case SONDE_SDT_ARG_RIP: {
      __u64 addr = arg_address(a, regs);
      __u32 n = size;
      if (n == 0 || n > 8) n = 8;
      int ok = addr != 0;
      if (ok && (type & SONDE_SDT_TYPE_STRING)) ok = read_string(s, addr, &v);
      else if (ok) ok = bpf_probe_read_user(&v, n, (const void *)addr) == 0;
      if (!ok) {
        v = 0;
        type |= SONDE_SDT_TYPE_FAULT;
      }
      break;
    }
    default:
      break;
  }
  /* Truncate to the size, then sign-extend if signed. */
  if (!(type & SONDE_SDT_TYPE_STRING) && (size == 1 || size == 2 || size == 4)) {
    __u32 bits = 64 - size * 8;
    if (type & SONDE_SDT_TYPE_SIGNED)
      v = (__u64)(((__s64)(v << bits)) >> bits);
    else
      v = (v << bits) >> bits;
  }
  s->raw.types[i] = type;
  s->raw.values[i] = v;
  return 0;
}

SEC("kprobe/sonde_sdt")
int sonde_sdt(struct bpf_raw_tracepoint_args *ctx_unused) {
  /* The context is struct pt_regs; copy it once so registers can be picked
   * by index (ctx itself only allows constant offsets). */
  const __u64 *ctx = (const __u64 *)ctx_unused;
  struct sonde_regs regs;
#pragma unroll
  for (int i = 0; i < NREGS; i++) regs.r[i] = ctx[i];

  __u32 site = (__u32)bpf_get_attach_cookie(ctx_unused);
  struct sonde_sdt_site_spec *spec = bpf_map_lookup_elem(&sites, &site);
  if (!spec) return 0;
  if (!wanted()) return 0;

  __u32 zero = 0;
  struct sonde_sdt_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
  if (!s) return 0;
  s->str_used = 0;
  s->raw.magic = SONDE_SDT_MAGIC;
  s->raw.version = 1;
  s->raw.site = site;
  s->raw.probe = spec->probe;
  __u32 nargs = spec->nargs;
  if (nargs > SONDE_SDT_MAX_ARGS) nargs = SONDE_SDT_MAX_ARGS;
  s->raw.nargs = nargs;
  for (__u32 i = 0; i < SONDE_SDT_MAX_ARGS; i++) {
    s->raw.types[i] = 0;
    s->raw.values[i] = 0;
  }
  for (__u32 i = 0; i < nargs; i++) sonde_sdt_arg(spec, &regs, s, i);
  __u64 size = sizeof(struct sonde_sdt_raw) + s->str_used;
  if (size > sizeof(struct sonde_sdt_raw) + SONDE_SDT_STR_AREA) size = sizeof(struct sonde_sdt_raw) + SONDE_SDT_STR_AREA;
  bpf_perf_event_output(ctx_unused, &events, BPF_F_CURRENT_CPU, &s->raw, size);
  return 0;
}
