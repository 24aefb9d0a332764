/* The CFI walker, shared by the sampling program (cfi.bpf.c) and the
 * off-CPU program (src/offcpu/offcpu.bpf.c): the maps the recorder fills
 * (processes' mappings, tables, rows; one set, which the off-CPU object
 * reuses by fd) and the walk itself. Per frame: the mapping holding pc (a
 * binary search in the process's sorted mappings), the table row covering
 * it (a binary search in the table's rows), then CFA = rsp/rbp + offset,
 * return address at CFA-8, rbp restored from CFA-8n when saved. Code with
 * no CFI is walked by its frame pointer. docs/cfi.md. */
#ifndef SONDE_CFI_WALK_BPF_H
#define SONDE_CFI_WALK_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "cfi/cfi_abi.h"

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

/* The user walk's state. It lives in a per-CPU map, not on the BPF
 * stack: the verifier tracks stack values exactly and would check the
 * step callback again for every value of the frame counters. */
struct walk {
  __u64 pc, sp, bp;
  __u32 n;     /* slots of ips used */
  __u32 stop;  /* SONDE_STOP_* */
  __u32 flags; /* SONDE_CFI_SAMPLE_* */
  __u32 cfi_frames, fp_frames;
  __u32 exact_pc; /* pc is an interrupted instruction (after a signal frame), not a return address */
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct walk);
} walks SEC(".maps");

/* What each bpf_loop step gets (on the stack: pointers keep their types). */
struct walk_ref {
  struct walk *w;
  struct sonde_cfi_process *proc;
  __u64 *ips; /* SONDE_CFI_MAX_FRAMES slots, in a map value */
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
static __always_inline __u64 rule_for(struct walk_ref *ref, __u64 index) {
  struct walk *w = ref->w;
  struct sonde_cfi_mapping *m = find_mapping(ref->proc, w->pc);
  __u64 none = SONDE_ROW(0, SONDE_CFA_NONE, 0, SONDE_RBP_SAME, 0);
  if (!m) {
    /* The sampled pc in no mapping we know: one the recorder has not seen
     * yet (JIT code too, which the frame pointer may get through). */
    if (index == 0) w->flags |= SONDE_CFI_SAMPLE_NO_TABLE;
    return none;
  }
  if (m->table == SONDE_CFI_NO_TABLE) return none; /* an object without CFI */
  /* A return address is just after its call: look up the call itself. */
  __u64 lookup = index && !w->exact_pc ? w->pc - 1 : w->pc;
  return find_row(m->table, lookup - m->bias);
}

/* The CFA of the current frame by `row`, or 0 with w->stop set. */
static __always_inline __u64 cfa_of(struct walk *w, __u64 row, __u32 *rbp_slot) {
  __u32 off = SONDE_ROW_OFFSET(row);
  *rbp_slot = SONDE_ROW_RBP(row) == SONDE_RBP_SAVED ? SONDE_ROW_RBP_SLOT(row) : 0;
  switch (SONDE_ROW_CFA(row)) {
    case SONDE_CFA_RSP: w->cfi_frames++; return w->sp + off;
    case SONDE_CFA_RBP: w->cfi_frames++; return w->bp + off;
    case SONDE_CFA_PLT: w->cfi_frames++; return w->sp + 8 + ((w->pc & 15) >= off ? 8 : 0);
    case SONDE_CFA_NONE:
      if (w->bp == 0) break; /* the end of a frame-pointer chain */
      w->fp_frames++;
      *rbp_slot = 2;
      return w->bp + 16;
    case SONDE_CFA_END: break;
    default: w->stop = SONDE_STOP_UNSUPPORTED; return 0;
  }
  w->stop = SONDE_STOP_ROOT;
  return 0;
}

/* Moves the walk to the caller's frame (pc, sp, bp) and records pc;
 * `exact`: pc is an interrupted instruction, not a return address. A pc of
 * 0 ends the walk at the root. 1 to stop. */
static __always_inline long push_frame(struct walk_ref *ref, __u64 pc, __u64 sp, __u64 bp, __u32 exact) {
  struct walk *w = ref->w;
  if (pc == 0) {
    w->stop = SONDE_STOP_ROOT;
    return 1;
  }
  __u32 at = w->n;
  if (at >= SONDE_CFI_MAX_FRAMES) {
    w->stop = SONDE_STOP_DEPTH;
    return 1;
  }
  ref->ips[at] = pc;
  w->n++;
  w->pc = pc;
  w->sp = sp;
  w->bp = bp;
  w->exact_pc = exact;
  return 0;
}

/* Through a signal trampoline: the interrupted context's registers from the
 * ucontext at sp (SONDE_CFA_SIGNAL); its pc is the instruction the signal
 * interrupted, looked up as it is. 1 to stop. */
static __always_inline long signal_step(struct walk_ref *ref) {
  struct walk *w = ref->w;
  __u64 gregs = w->sp + SONDE_UC_GREGS, ip = 0, sp = 0, bp = 0;
  if (bpf_probe_read_user(&ip, sizeof ip, (void *)(gregs + 8 * SONDE_GREG_RIP)) != 0 ||
      bpf_probe_read_user(&sp, sizeof sp, (void *)(gregs + 8 * SONDE_GREG_RSP)) != 0 ||
      bpf_probe_read_user(&bp, sizeof bp, (void *)(gregs + 8 * SONDE_GREG_RBP)) != 0) {
    w->stop = SONDE_STOP_READ;
    return 1;
  }
  w->cfi_frames++;
  return push_frame(ref, ip, sp, bp, 1);
}

/* One frame up; 1 to stop. */
static long step(__u64 index, void *ctx) {
  struct walk_ref *ref = ctx;
  struct walk *w = ref->w;
  __u32 slot = 0;
  __u64 row = rule_for(ref, index);
  if (SONDE_ROW_CFA(row) == SONDE_CFA_SIGNAL) return signal_step(ref);
  __u64 cfa = cfa_of(w, row, &slot);
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
  return push_frame(ref, ra, cfa, bp, 0);
}


/* The registers a walk starts from. */
struct sonde_cfi_regs {
  __u64 ip, sp, bp;
};

/* Walks the user stack of thread-group `tgid` from `r`, writing frames into
 * ips (SONDE_CFI_MAX_FRAMES slots) from slot `first` on (the leaf, then
 * return addresses), at most `max_steps` steps. Returns the walk's state
 * (frames used, stop reason, flags, frame counts), or 0 when the per-CPU
 * state is missing (it cannot be). Asks the recorder for the process's
 * mappings when it met code it does not know (`now`: bpf_ktime_get_ns()). */
static __always_inline struct walk *sonde_cfi_walk_user(__u64 *ips, __u32 first, __u32 tgid,
                                                        const struct sonde_cfi_regs *r, __u32 max_steps, __u64 now) {
  __u32 zero = 0;
  struct walk *w = bpf_map_lookup_elem(&walks, &zero);
  if (!w) return 0;
  w->n = first;
  w->flags = 0;
  w->cfi_frames = 0;
  w->fp_frames = 0;
  w->exact_pc = 0;
  if (first >= SONDE_CFI_MAX_FRAMES) {
    w->stop = SONDE_STOP_DEPTH;
    return w;
  }
  ips[first] = r->ip;
  w->n = first + 1;
  struct walk_ref ref = {.w = w, .proc = bpf_map_lookup_elem(&processes, &tgid), .ips = ips};
  if (!ref.proc) {
    w->stop = SONDE_STOP_NO_PROCESS;
    w->flags |= SONDE_CFI_SAMPLE_NO_TABLE;
  } else {
    w->pc = r->ip;
    w->sp = r->sp;
    w->bp = r->bp;
    w->stop = SONDE_STOP_DEPTH;
    bpf_loop(max_steps, step, &ref, 0);
  }
  if (w->flags & SONDE_CFI_SAMPLE_NO_TABLE) ask_for_mappings(tgid, now);
  return w;
}

#endif
