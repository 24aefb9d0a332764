/* Shared between the CFI unwinder's BPF program (cfi.bpf.c, compiled by
 * clang -target bpf) and sonde's C++ code: the packed unwind-table row, the
 * per-process mapping list, the per-table descriptor, the sample the program
 * sends and its counters. Plain C, fixed-width fields, explicit padding;
 * sizes are pinned by static_asserts in cfi_bpf.cpp. docs/cfi.md. */
#ifndef SONDE_CFI_ABI_H
#define SONDE_CFI_ABI_H

#include <linux/types.h>

/* One unwind-table row, packed in a u64 (rows of a table are sorted by pc;
 * a row holds from its pc to the next row's):
 *   bits  0..31  pc, relative to the table's base address
 *   bits 32..35  how the CFA is found (SONDE_CFA_*)
 *   bits 36..39  how the caller's rbp is found (SONDE_RBP_*)
 *   bits 40..55  the CFA offset in bytes (SONDE_CFA_PLT: the rip&15 threshold)
 *   bits 56..63  SONDE_RBP_SAVED: rbp is saved at CFA - 8 * this
 * The return address is always at CFA - 8 (any other rule is unsupported). */
#define SONDE_CFA_NONE 0        /* no CFI covers pc: walk by the frame pointer */
#define SONDE_CFA_RSP 1         /* CFA = rsp + offset */
#define SONDE_CFA_RBP 2         /* CFA = rbp + offset */
#define SONDE_CFA_PLT 3         /* PLT stubs: CFA = rsp + 8 + ((rip & 15) >= offset ? 8 : 0) */
#define SONDE_CFA_UNSUPPORTED 4 /* another rule (an expression, another register): the walk stops */
#define SONDE_CFA_END 5         /* the return address is undefined: the outermost frame */
#define SONDE_CFA_SIGNAL 6      /* a signal trampoline ('S' FDE, __restore_rt): the interrupted
                                   context's rip, rsp and rbp are in the ucontext at rsp */

/* x86-64's rt_sigframe as the trampoline sees it (the handler's return
 * address popped): the ucontext at rsp; uc_mcontext's gregs 40 bytes in
 * (uc_flags, uc_link, uc_stack), rbp, rsp and rip at gregs 10, 15, 16. */
#define SONDE_UC_GREGS 40
#define SONDE_GREG_RBP 10
#define SONDE_GREG_RSP 15
#define SONDE_GREG_RIP 16

#define SONDE_RBP_SAME 0  /* rbp unchanged in this frame */
#define SONDE_RBP_SAVED 1 /* rbp saved at CFA - 8 * n */

#define SONDE_ROW_PC(r) ((__u32)(r))
#define SONDE_ROW_CFA(r) ((__u32)((r) >> 32) & 0xf)
#define SONDE_ROW_RBP(r) ((__u32)((r) >> 36) & 0xf)
#define SONDE_ROW_OFFSET(r) ((__u32)((r) >> 40) & 0xffff)
#define SONDE_ROW_RBP_SLOT(r) ((__u32)((r) >> 56) & 0xff)
#define SONDE_ROW(pc, cfa, off, rbp, slot)                                                        \
  ((__u64)(__u32)(pc) | ((__u64)((cfa) & 0xf) << 32) | ((__u64)((rbp) & 0xf) << 36) |          \
   ((__u64)((off) & 0xffff) << 40) | ((__u64)((slot) & 0xff) << 56))

/* An unwind table: rows[first, first + count) of the rows map. */
struct sonde_cfi_table {
  __u64 base; /* the link-time address row pcs are relative to */
  __u32 first;
  __u32 count;
};

/* Executable mappings of one process, sorted by start. */
#define SONDE_CFI_MAX_MAPPINGS 256
#define SONDE_CFI_NO_TABLE 0xffffffffu /* a mapping without a table (yet): frame pointers */
struct sonde_cfi_mapping {
  __u64 start, end;
  __u64 bias;  /* link-time address = runtime address - bias */
  __u32 table; /* index in the tables map, or SONDE_CFI_NO_TABLE */
  __u32 pad;
};
struct sonde_cfi_process {
  __u32 count;
  __u32 pad;
  struct sonde_cfi_mapping m[SONDE_CFI_MAX_MAPPINGS];
};

/* Frames in one sample, kernel and user together (PERF_MAX_STACK_DEPTH). */
#define SONDE_CFI_MAX_FRAMES 127
#define SONDE_CFI_MAX_KERNEL 64 /* the kernel part is cut at this many frames */

/* Why a user walk stopped (the sample's `stop`; counted in stats). */
#define SONDE_STOP_ROOT 0        /* the outermost frame (CFI says so, or a zero return address/frame pointer) */
#define SONDE_STOP_DEPTH 1       /* SONDE_CFI_MAX_FRAMES reached */
#define SONDE_STOP_NO_MAPPING 2  /* pc in no known executable mapping (JIT code, a mapping not seen yet) */
#define SONDE_STOP_UNSUPPORTED 3 /* the CFI rule at pc is not one the program evaluates */
#define SONDE_STOP_READ 4        /* the stack could not be read */
#define SONDE_STOP_BAD_FRAME 5   /* the next frame does not go up the stack */
#define SONDE_STOP_NO_PROCESS 6  /* no mappings known for the process yet */
#define SONDE_STOP_KERNEL_ONLY 7 /* no user part (a kernel thread) */
#define SONDE_CFI_NSTOPS 8

/* Counters (stats map slots): the stop reasons first, then these. */
#define SONDE_CFI_STAT_SAMPLES (SONDE_CFI_NSTOPS + 0)     /* samples seen by the program */
#define SONDE_CFI_STAT_RING_FULL (SONDE_CFI_NSTOPS + 1)   /* samples lost: ring buffer full */
#define SONDE_CFI_STAT_FP_FRAMES (SONDE_CFI_NSTOPS + 2)   /* frames found through the frame pointer */
#define SONDE_CFI_STAT_CFI_FRAMES (SONDE_CFI_NSTOPS + 3)  /* frames found through a table */
#define SONDE_CFI_STAT_NO_TABLE (SONDE_CFI_NSTOPS + 4)    /* samples that met a mapping without a table */
#define SONDE_CFI_STAT_FILTERED (SONDE_CFI_NSTOPS + 5)    /* off-CPU: a thread not followed */
#define SONDE_CFI_NSTATS (SONDE_CFI_NSTOPS + 6)

/* One sample as the program sends it: the ring buffer carries the header
 * and the nr_kernel + nr_user frames that hold data. */
struct sonde_cfi_sample {
  __u64 time; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the recorder's clock with cfi */
  __u64 ip;
  __u64 period;
  __u32 pid, tid;
  __u32 cpu;
  __u16 nr_kernel, nr_user;
  __u16 misc; /* PERF_RECORD_MISC_USER or _KERNEL */
  __u16 stop; /* SONDE_STOP_* */
  __u32 flags; /* SONDE_CFI_SAMPLE_* */
  __u64 ips[SONDE_CFI_MAX_FRAMES]; /* kernel frames, then user frames, innermost first */
};
#define SONDE_CFI_SAMPLE_NO_TABLE 1 /* the walk met a mapping that had no table yet */

struct sonde_cfi_config {
  __u32 max_user; /* user frames at most (<= SONDE_CFI_MAX_FRAMES) */
  __u32 pad;
};

#endif
