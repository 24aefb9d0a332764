/* Shared between the BPF program (sdt.bpf.c, compiled by clang -target bpf)
 * and sonde's C++ code: the per-site argument recipe the program executes and
 * the RAW payload it emits. Plain C, fixed-width fields, explicit padding so
 * both compilers agree on every offset (checked by static_asserts in
 * sdt_bpf.cpp). */
#ifndef SONDE_PROBE_SDT_ABI_H
#define SONDE_PROBE_SDT_ABI_H

#include <linux/types.h>

#define SONDE_SDT_MAX_ARGS 12
#define SONDE_SDT_NO_REG 0xff
/* Pointer reads after the first memory read: `a->b->c` at -O0 is three
 * reads (the frame slot, then two pointers), perf's `+8(+0(-24(%bp)))`. */
#define SONDE_SDT_MAX_DEREFS 4
/* A string argument reads at most this many bytes (with its NUL); strings
 * follow the raw header, each in at most one slot, so they always fit. */
#define SONDE_SDT_STR_MAX 256
#define SONDE_SDT_STR_AREA (SONDE_SDT_STR_MAX * SONDE_SDT_MAX_ARGS)

/* How the program obtains an argument's value. */
enum sonde_sdt_arg_kind {
  SONDE_SDT_ARG_NONE = 0,
  SONDE_SDT_ARG_IMM = 1, /* value = disp */
  SONDE_SDT_ARG_REG = 2, /* value = regs[base] >> shift */
  SONDE_SDT_ARG_MEM = 3, /* value = *(regs[base] + regs[index]*scale + disp) */
  SONDE_SDT_ARG_RIP = 4, /* value = *(probe ip + disp): a rip-relative global */
};

/* The type byte: size in bytes (1, 2, 4, 8) in the low nibble plus flags. */
#define SONDE_SDT_TYPE_SIZE_MASK 0x0f
#define SONDE_SDT_TYPE_SIGNED 0x10
#define SONDE_SDT_TYPE_FLOAT 0x20
#define SONDE_SDT_TYPE_FAULT 0x40 /* the memory read failed: value is 0 */
/* A NUL-terminated string read at the argument's final address (perf's
 * `:string`): value = offset of its bytes after the header | length << 32. */
#define SONDE_SDT_TYPE_STRING 0x80

/* Registers are numbered by their u64 slot in x86-64 struct pt_regs. */
struct sonde_sdt_arg_spec {
  __u8 kind;
  __u8 type;
  __u8 base;
  __u8 index;
  __u8 scale;
  __u8 shift;
  __u8 nderefs; /* MEM: pointer reads after the first (SONDE_SDT_MAX_DEREFS at most) */
  __u8 pad;
  __s64 disp;
  /* MEM with nderefs: addr = *(u64 *)addr + derefs[j] for each j, then the
   * final read (or string) at addr. */
  __s32 derefs[SONDE_SDT_MAX_DEREFS];
};

struct sonde_sdt_site_spec {
  __u32 probe; /* index of the probe name (one perf event per name) */
  __u32 nargs;
  struct sonde_sdt_arg_spec args[SONDE_SDT_MAX_ARGS];
};

/* RAW payload of every SDT sample. Self-describing: a reader needs no side
 * table to print the values with their size and sign. */
#define SONDE_SDT_MAGIC 0x5344u /* "DS" little-endian: a cheap sanity check */
struct sonde_sdt_raw {
  __u16 magic;
  __u8 version; /* 1 */
  __u8 nargs;
  __u32 site;   /* cookie of the site: index in the recorder's site table */
  __u32 probe;  /* probe-name index */
  __u8 types[SONDE_SDT_MAX_ARGS];
  __u64 values[SONDE_SDT_MAX_ARGS];
};

/* The per-CPU buffer a hit is assembled in: the header, then the bytes of
 * its string arguments (emitted as one RAW payload of 120 + used bytes). */
struct sonde_sdt_scratch {
  __u32 str_used;
  __u32 pad;
  struct sonde_sdt_raw raw;
  __u8 str[SONDE_SDT_STR_AREA];
};

/* Program configuration (one-entry array). */
struct sonde_sdt_config {
  __u32 filter_tgids; /* 1: only processes in the tgids map (and their descendants) */
  __u32 pad;
};

#endif
