/* What the summary program (syscall_summary.bpf.c) and sonde share: per
 * (thread, syscall) statistics kept in a per-CPU hash, read once at the end
 * (`trace -s --bpf-summary`). Plain C: compiled for BPF and for the host. */
#pragma once

#include <linux/types.h>

#define SONDE_SUMMARY_SLOTS 512       /* syscall numbers the -e filter knows */
#define SONDE_SUMMARY_ALL 1           /* config.mode: every process (-a) */
#define SONDE_SUMMARY_TARGETS 0       /* config.mode: the followed processes */
#define SONDE_SUMMARY_BY_THREAD 0     /* key.owner: the thread id */
#define SONDE_SUMMARY_BY_TOTAL 1      /* key.owner: 0, every thread together */
#define SONDE_SUMMARY_BY_CGROUP 2     /* key.owner: the cgroup v2 id of the thread at the call's exit */
#define SONDE_SUMMARY_ENTRIES 65536   /* (thread, syscall) pairs kept; more are counted in `dropped` */

struct sonde_summary_config {
  __u32 mode;
  __u32 self_tgid;    /* sonde itself: never counted */
  __u32 aggregate;    /* SONDE_SUMMARY_BY_*: what a key's owner is */
  __u32 filtered;     /* 1: only the calls whose `wanted` slot is set (-e) */
  __u32 workload;     /* the forked command, counted from its execve on (0: none) */
  __u32 pad;
};

struct sonde_summary_key {
  __u64 owner;        /* config.aggregate says what */
  __u32 nr;
  __u32 pad;
};

/* One CPU's share of a (thread, syscall) pair. The sum of squared
 * durations is 128 bits wide (hi:lo), exact for any duration. */
struct sonde_summary_stats {
  __u64 calls, errors;
  __u64 total_ns, min_ns, max_ns;
  __u64 squares_lo, squares_hi;
  __u64 last_ns;      /* when this CPU last counted it: the newest comm wins */
  __u32 pid;
  __u32 pad;
  char comm[16];
};

/* hi:lo += d * d, exact: d split into 32-bit halves a:b, d² = a²·2^64 +
 * 2ab·2^32 + b². Shared by the BPF program and the unit tests. */
static inline void sonde_summary_add_square(__u64 *hi, __u64 *lo, __u64 d) {
  __u64 a = d >> 32, b = d & 0xffffffffULL;
  __u64 ab = a * b, b2 = b * b, mid_lo = ab << 33;
  *hi += a * a + (ab >> 31);
  *lo += mid_lo;
  if (*lo < mid_lo) *hi += 1;
  *lo += b2;
  if (*lo < b2) *hi += 1;
}

/* Why a call went uncounted, indexes of the `dropped` array. */
#define SONDE_SUMMARY_NO_SLOT 0       /* the stats map was full */
#define SONDE_SUMMARY_NO_START 1      /* the entry map was full: the exit had no start */
#define SONDE_SUMMARY_DROP_KINDS 2
