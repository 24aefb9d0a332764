/* Shared between the off-CPU BPF program (offcpu.bpf.c, compiled by clang
 * -target bpf) and sonde's C++ code: the program's configuration, what it
 * remembers of a thread that went off CPU, the aggregated (thread, stacks,
 * kind) sums and the one-per-block events of long blocks. Plain C,
 * fixed-width fields, explicit padding; offsets are pinned by static_asserts
 * in offcpu_bpf.cpp. */
#ifndef SONDE_OFFCPU_ABI_H
#define SONDE_OFFCPU_ABI_H

#include <linux/types.h>

/* Why the thread was off CPU. */
#define SONDE_OFFCPU_BLOCKED 0 /* it slept: waiting for something (I/O, a lock, a timer) */
#define SONDE_OFFCPU_PREEMPT 1 /* it was runnable: waiting for a CPU */

/* Frames per stack (the kernel's PERF_MAX_STACK_DEPTH). */
#define SONDE_OFFCPU_MAX_FRAMES 127

/* Which threads are followed. */
#define SONDE_OFFCPU_ALL 0     /* every thread but the recorder's own (-a) */
#define SONDE_OFFCPU_TARGETS 1 /* the tgids/tids maps and their children */

/* Counters the program keeps for the recorder (stats map slots). */
#define SONDE_OFFCPU_STAT_RING_FULL 0   /* a long block or overflowing sum lost: ring buffer full */
#define SONDE_OFFCPU_STAT_STARTS_FULL 1 /* a switch-out not remembered: starts map full */
#define SONDE_OFFCPU_STAT_SUMS_FULL 2   /* a short block sent alone: sums map full */
#define SONDE_OFFCPU_STAT_BAD_ARGS 3    /* the tracepoint's prev is not the current task */
#define SONDE_OFFCPU_STAT_COPIES_FULL 4 /* --call-graph dwarf: a user stack copy not kept (copies map full) */
#define SONDE_OFFCPU_STAT_NO_USER 5     /* --call-graph dwarf: no user stack to copy (an exiting thread) */
#define SONDE_OFFCPU_STAT_NO_STACK 6   /* a switch-out's kernel stack, or its user stack's bucket, lost */
#define SONDE_OFFCPU_STAT_NO_SWITCH_IN 7 /* a block never closed: the kernel reported no switch-in before the next switch-out */
#define SONDE_OFFCPU_NSTATS 9

/* --call-graph dwarf: the most user stack bytes copied at a switch-out
 * (perf's default dwarf size), and the user registers copied with them:
 * perf's x86-64 unwinding set (sample_regs_user 0xff0fff), in its order
 * AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15. */
#define SONDE_OFFCPU_STACK_MAX 8192
#define SONDE_OFFCPU_NREGS 20

struct sonde_offcpu_config {
  __u64 thresh_ns;   /* blocks at least this long are sent one by one */
  __u32 mode;        /* SONDE_OFFCPU_ALL or SONDE_OFFCPU_TARGETS */
  __u32 self_tgid;   /* the recorder: never followed */
  __u32 stack_bytes; /* --call-graph dwarf: user stack bytes to copy (at most SONDE_OFFCPU_STACK_MAX); 0: none */
  __u32 cfi_user;    /* --call-graph cfi: 1 to walk user stacks with the CFI tables (src/cfi) */
};

/* --call-graph cfi: a user stack the CFI walker found, kept in cfi_stacks
 * under an id with this bit set (never a stack map id, which is below
 * the stack map's size). */
#define SONDE_OFFCPU_CFI_STACK_BIT 0x40000000
#define SONDE_OFFCPU_STAT_CFI_COLLISION 8 /* --call-graph cfi: two stacks with one id: the second kept its frame-pointer stack */

/* A followed thread that went off CPU, by task pointer. */
struct sonde_offcpu_start {
  __u64 time; /* bpf_ktime_get_ns() at the switch-out (CLOCK_MONOTONIC) */
  __u32 pid;  /* thread-group id */
  __u32 tid;
  __s32 user_stack;   /* stack map ids; negative: none */
  __s32 kernel_stack;
  __u32 kind;
  __u32 pad;
};

/* The aggregation key of short blocks. */
struct sonde_offcpu_key {
  __u32 pid;
  __u32 tid;
  __s32 user_stack;
  __s32 kernel_stack;
  __u32 kind;
  __u32 pad;
};

struct sonde_offcpu_sum {
  __u64 ns;
  __u64 count;
  __u32 cpu; /* where the last block ended */
  __u32 pad;
};

/* One block, sent through the ring buffer when it reached the threshold
 * (or when the sums map was full). */
struct sonde_offcpu_event {
  __u64 time; /* the switch-in: when the block ended */
  __u64 ns;
  struct sonde_offcpu_key key;
  __u32 cpu;
  __u32 pad;
};

/* --call-graph dwarf: a long block with the user registers and stack of
 * its switch-out, for unwinding with the objects' CFI at report time. The
 * ring buffer carries only the stack_size bytes of stack[] that hold data. */
struct sonde_offcpu_stack_event {
  struct sonde_offcpu_event e;
  __u64 regs[SONDE_OFFCPU_NREGS];
  __u64 stack_size;
  __u8 stack[SONDE_OFFCPU_STACK_MAX];
};

#endif
