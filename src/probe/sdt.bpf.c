/* The one BPF program behind every SDT probe sonde records. It is attached
 * through BPF uprobe_multi links (one per object file); the link's cookie of
 * a site is its index in the `sites` map, which holds the parsed argument
 * recipe. It reads each argument as the note's spec says (register,
 * sub-register, immediate, memory operand, rip-relative global), applies size
 * and sign, and emits a struct sonde_sdt_raw through a PERF_EVENT_ARRAY of
 * per-CPU bpf-output events that the recorder drains like any other. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "sdt_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* x86-64 user registers as the uprobe handler sees them (struct pt_regs). */
#define NREGS 21
#define REG_IP 16

/* Only the two fields the ancestry walk needs; CO-RE relocates them against
 * the running kernel's BTF. */
struct task_struct {
  int tgid;
  struct task_struct *real_parent;
} __attribute__((preserve_access_index));

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, struct sonde_sdt_site_spec);
} sites SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, __u32);
  __type(value, __u8);
} tgids SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct sonde_sdt_config);
} config SEC(".maps");

/* Is the current process one we record? Processes forked by a recorded one
 * count even before the recorder has seen their FORK record: walk a few
 * ancestors and adopt the process on a match. */
static __always_inline int wanted(void) {
  __u32 zero = 0;
  struct sonde_sdt_config *cfg = bpf_map_lookup_elem(&config, &zero);
  if (!cfg || !cfg->filter_tgids) return 1;
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (bpf_map_lookup_elem(&tgids, &tgid)) return 1;
  struct task_struct *t = (struct task_struct *)bpf_get_current_task();
  for (int i = 0; i < 16; i++) {
    t = BPF_CORE_READ(t, real_parent);
    if (!t) return 0;
    __u32 ptgid = BPF_CORE_READ(t, tgid);
    if (ptgid <= 1) return 0;
    if (bpf_map_lookup_elem(&tgids, &ptgid)) {
      __u8 one = 1;
      bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY);
      return 1;
    }
  }
  return 0;
}

static __always_inline __u64 reg_at(const __u64 *regs, __u8 r) {
  if (r >= NREGS) return 0;
  return regs[r];
}

SEC("kprobe/sonde_sdt")
int sonde_sdt(struct bpf_raw_tracepoint_args *ctx_unused) {
  /* The context is struct pt_regs; copy it once so registers can be picked
   * by index (ctx itself only allows constant offsets). */
  const __u64 *ctx = (const __u64 *)ctx_unused;
  __u64 regs[NREGS];
#pragma unroll
  for (int i = 0; i < NREGS; i++) regs[i] = ctx[i];

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

  for (int i = 0; i < SONDE_SDT_MAX_ARGS; i++) {
    if (i >= nargs) break;
    const struct sonde_sdt_arg_spec *a = &spec->args[i];
    __u8 type = a->type;
    __u8 size = type & SONDE_SDT_TYPE_SIZE_MASK;
    __u64 v = 0;
    switch (a->kind) {
      case SONDE_SDT_ARG_IMM:
        v = (__u64)a->disp;
        break;
      case SONDE_SDT_ARG_REG:
        v = reg_at(regs, a->base) >> (a->shift & 63);
        break;
      case SONDE_SDT_ARG_MEM:
      case SONDE_SDT_ARG_RIP: {
        __u64 addr = (__u64)a->disp;
        if (a->kind == SONDE_SDT_ARG_RIP) {
          addr += regs[REG_IP];
        } else {
          if (a->base != SONDE_SDT_NO_REG) addr += reg_at(regs, a->base);
          if (a->index != SONDE_SDT_NO_REG) addr += reg_at(regs, a->index) * a->scale;
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
    out.types[i] = type;
    out.values[i] = v;
  }
  bpf_perf_event_output(ctx_unused, &events, BPF_F_CURRENT_CPU, &out, sizeof(out));
  return 0;
}
