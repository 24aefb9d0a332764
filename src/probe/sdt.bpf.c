/* The one BPF program behind every SDT probe sonde records. It is attached
 * through BPF uprobe_multi links (one per object file) or, on kernels
 * without them, through one uprobe perf event per site; either way the
 * cookie of a site is its index in the `sites` map, which holds the parsed
 * argument recipe. It reads each argument as the note's spec says (register,
 * sub-register, immediate, memory operand, rip-relative global), applies size
 * and sign, and emits a struct sonde_sdt_raw through a PERF_EVENT_ARRAY of
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

/* Reads argument `i` of a site into out->types[i] / out->values[i]. A global
 * (non-static, not inlined) function: the verifier checks it once, on its
 * own, instead of once per argument slot and per path through the caller's
 * loop (inlined, the loop cost ~8,000 verified instructions and ~9 ms of
 * load time; this way a few hundred). */
__attribute__((noinline)) int sonde_sdt_arg(const struct sonde_sdt_site_spec *spec, const struct sonde_regs *regs,
                                            struct sonde_sdt_raw *out, __u32 i) {
  if (!spec || !regs || !out || i >= SONDE_SDT_MAX_ARGS) return 0;
  const struct sonde_sdt_arg_spec *a = &spec->args[i];
  __u8 type = a->type;
  __u8 size = type & SONDE_SDT_TYPE_SIZE_MASK;
  __u8 base = a->base, index = a->index;
  __u64 v = 0;
  switch (a->kind) {
    case SONDE_SDT_ARG_IMM:
      v = (__u64)a->disp;
      break;
    case SONDE_SDT_ARG_REG:
      if (base < NREGS) v = regs->r[base] >> (a->shift & 63);
      break;
    case SONDE_SDT_ARG_MEM:
    case SONDE_SDT_ARG_RIP: {
      __u64 addr = (__u64)a->disp;
      if (a->kind == SONDE_SDT_ARG_RIP) {
        addr += regs->r[REG_IP];
      } else {
        if (base < NREGS) addr += regs->r[base];
        if (index < NREGS) addr += regs->r[index] * a->scale;
      }
      __u32 n = size;
      if (n == 0 || n > 8) n = 8;
      if (bpf_probe_read_user(&v, n, (const void *)addr) != 0) {
        v = 0;
        type |= SONDE_SDT_TYPE_FAULT;
      }
      break;
    }
    default:
      break;
  }
  /* Truncate to the size, then sign-extend if signed. */
  if (size == 1 || size == 2 || size == 4) {
    __u32 bits = 64 - size * 8;
    if (type & SONDE_SDT_TYPE_SIGNED)
      v = (__u64)(((__s64)(v << bits)) >> bits);
    else
      v = (v << bits) >> bits;
  }
  out->types[i] = type;
  out->values[i] = v;
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

  struct sonde_sdt_raw out = {};
  out.magic = SONDE_SDT_MAGIC;
  out.version = 1;
  out.site = site;
  out.probe = spec->probe;
  __u32 nargs = spec->nargs;
  if (nargs > SONDE_SDT_MAX_ARGS) nargs = SONDE_SDT_MAX_ARGS;
  out.nargs = nargs;
  for (__u32 i = 0; i < nargs; i++) sonde_sdt_arg(spec, &regs, &out, i);
  bpf_perf_event_output(ctx_unused, &events, BPF_F_CURRENT_CPU, &out, sizeof(out));
  return 0;
}
