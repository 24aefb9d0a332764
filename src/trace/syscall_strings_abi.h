/* What the path-string program (syscall_strings.bpf.c) and sonde share:
 * one event per string argument read at a followed thread's syscall entry.
 * Plain C: compiled for BPF and for the host. */
#pragma once

#include <linux/types.h>

#define SONDE_STRING_MAX 256      /* bytes of a string, its NUL included (perf trace's augmentation reads 256) */
#define SONDE_SYSCALL_SLOTS 512   /* syscall numbers the program knows */
#define SONDE_STRINGS_ALL 1       /* config.mode: every process (-a) */
#define SONDE_STRINGS_TARGETS 0   /* config.mode: the followed processes */

struct sonde_strings_config {
  __u32 mode;
  __u32 self_tgid;  /* sonde itself: never traced */
};

struct sonde_string_event {
  __u32 pid, tid;
  __u64 time;   /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns): the recorder's events use the same clock */
  __u64 ip;     /* the user instruction pointer of the call (perf script shows a sample's ip) */
  __u32 nr;     /* syscall number */
  __u32 arg;    /* argument index, 0..5 */
  __u32 cpu;
  __s32 len;    /* bpf_probe_read_user_str's result: bytes with the NUL, or -errno */
  char str[SONDE_STRING_MAX];
};
