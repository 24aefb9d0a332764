// The kernel's perf_event ABI as sonde reads and writes it: the attr (up to
// VER8, 136 bytes), the record header, the ring buffer's control page, the
// enums and the ioctl numbers.
//
// Why a copy rather than <linux/perf_event.h>: the system header describes
// the linux-libc-dev that happens to be installed, not the recordings sonde
// reads or the kernel it runs on. Its perf_event_attr grew from 128 to 136
// bytes in 6.3 (config3), so code sized for one version stops building (or
// silently changes the bytes it writes) on the next. perf carries its own
// copy (tools/include/uapi/linux/perf_event.h) and simpleperf does the same;
// so does sonde. The layout is append-only in the kernel: every version is a
// prefix of this one, so attrs of any size are read through it
// (format/attr_reader.h) and the size the kernel accepts is what is written.
//
// Everything lives in sonde::uapi, so a TU that also sees the system header
// (through some library's header) gets no clash: the kernel's macros are
// spelled as kPerf... constants here, its enum and struct names are kept.
#pragma once

#include <sys/ioctl.h>

#include <cstddef>
#include <cstdint>

namespace sonde::uapi {

enum perf_type_id : uint32_t {
  PERF_TYPE_HARDWARE = 0,
  PERF_TYPE_SOFTWARE = 1,
  PERF_TYPE_TRACEPOINT = 2,
  PERF_TYPE_HW_CACHE = 3,
  PERF_TYPE_RAW = 4,
  PERF_TYPE_BREAKPOINT = 5,
  PERF_TYPE_MAX,
};

enum perf_hw_id : uint64_t {
  PERF_COUNT_HW_CPU_CYCLES = 0,
  PERF_COUNT_HW_INSTRUCTIONS = 1,
  PERF_COUNT_HW_CACHE_REFERENCES = 2,
  PERF_COUNT_HW_CACHE_MISSES = 3,
  PERF_COUNT_HW_BRANCH_INSTRUCTIONS = 4,
  PERF_COUNT_HW_BRANCH_MISSES = 5,
  PERF_COUNT_HW_BUS_CYCLES = 6,
  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND = 7,
  PERF_COUNT_HW_STALLED_CYCLES_BACKEND = 8,
  PERF_COUNT_HW_REF_CPU_CYCLES = 9,
  PERF_COUNT_HW_MAX,
};

// config = id | (op << 8) | (result << 16) for PERF_TYPE_HW_CACHE.
enum perf_hw_cache_id : uint64_t {
  PERF_COUNT_HW_CACHE_L1D = 0,
  PERF_COUNT_HW_CACHE_L1I = 1,
  PERF_COUNT_HW_CACHE_LL = 2,
  PERF_COUNT_HW_CACHE_DTLB = 3,
  PERF_COUNT_HW_CACHE_ITLB = 4,
  PERF_COUNT_HW_CACHE_BPU = 5,
  PERF_COUNT_HW_CACHE_NODE = 6,
  PERF_COUNT_HW_CACHE_MAX,
};
enum perf_hw_cache_op_id : uint64_t {
  PERF_COUNT_HW_CACHE_OP_READ = 0,
  PERF_COUNT_HW_CACHE_OP_WRITE = 1,
  PERF_COUNT_HW_CACHE_OP_PREFETCH = 2,
  PERF_COUNT_HW_CACHE_OP_MAX,
};
enum perf_hw_cache_op_result_id : uint64_t {
  PERF_COUNT_HW_CACHE_RESULT_ACCESS = 0,
  PERF_COUNT_HW_CACHE_RESULT_MISS = 1,
  PERF_COUNT_HW_CACHE_RESULT_MAX,
};

enum perf_sw_ids : uint64_t {
  PERF_COUNT_SW_CPU_CLOCK = 0,
  PERF_COUNT_SW_TASK_CLOCK = 1,
  PERF_COUNT_SW_PAGE_FAULTS = 2,
  PERF_COUNT_SW_CONTEXT_SWITCHES = 3,
  PERF_COUNT_SW_CPU_MIGRATIONS = 4,
  PERF_COUNT_SW_PAGE_FAULTS_MIN = 5,
  PERF_COUNT_SW_PAGE_FAULTS_MAJ = 6,
  PERF_COUNT_SW_ALIGNMENT_FAULTS = 7,
  PERF_COUNT_SW_EMULATION_FAULTS = 8,
  PERF_COUNT_SW_DUMMY = 9,
  PERF_COUNT_SW_BPF_OUTPUT = 10,
  PERF_COUNT_SW_CGROUP_SWITCHES = 11,
  PERF_COUNT_SW_MAX,
};

enum perf_event_sample_format : uint64_t {
  PERF_SAMPLE_IP = 1U << 0,
  PERF_SAMPLE_TID = 1U << 1,
  PERF_SAMPLE_TIME = 1U << 2,
  PERF_SAMPLE_ADDR = 1U << 3,
  PERF_SAMPLE_READ = 1U << 4,
  PERF_SAMPLE_CALLCHAIN = 1U << 5,
  PERF_SAMPLE_ID = 1U << 6,
  PERF_SAMPLE_CPU = 1U << 7,
  PERF_SAMPLE_PERIOD = 1U << 8,
  PERF_SAMPLE_STREAM_ID = 1U << 9,
  PERF_SAMPLE_RAW = 1U << 10,
  PERF_SAMPLE_BRANCH_STACK = 1U << 11,
  PERF_SAMPLE_REGS_USER = 1U << 12,
  PERF_SAMPLE_STACK_USER = 1U << 13,
  PERF_SAMPLE_WEIGHT = 1U << 14,
  PERF_SAMPLE_DATA_SRC = 1U << 15,
  PERF_SAMPLE_IDENTIFIER = 1U << 16,
  PERF_SAMPLE_TRANSACTION = 1U << 17,
  PERF_SAMPLE_REGS_INTR = 1U << 18,
  PERF_SAMPLE_PHYS_ADDR = 1U << 19,
  PERF_SAMPLE_AUX = 1U << 20,
  PERF_SAMPLE_CGROUP = 1U << 21,
  PERF_SAMPLE_DATA_PAGE_SIZE = 1U << 22,
  PERF_SAMPLE_CODE_PAGE_SIZE = 1U << 23,
  PERF_SAMPLE_WEIGHT_STRUCT = 1U << 24,
  PERF_SAMPLE_MAX = 1U << 25,
};

// attr.branch_sample_type bits sonde looks at.
enum perf_branch_sample_type : uint64_t {
  PERF_SAMPLE_BRANCH_HW_INDEX = 1U << 17,
};

enum perf_sample_regs_abi : uint64_t {
  PERF_SAMPLE_REGS_ABI_NONE = 0,
  PERF_SAMPLE_REGS_ABI_32 = 1,
  PERF_SAMPLE_REGS_ABI_64 = 2,
};

enum perf_event_read_format : uint64_t {
  PERF_FORMAT_TOTAL_TIME_ENABLED = 1U << 0,
  PERF_FORMAT_TOTAL_TIME_RUNNING = 1U << 1,
  PERF_FORMAT_ID = 1U << 2,
  PERF_FORMAT_GROUP = 1U << 3,
  PERF_FORMAT_LOST = 1U << 4,
  PERF_FORMAT_MAX = 1U << 5,
};

// The sizes perf_event_attr has had; attr.size says which one a copy is.
inline constexpr uint32_t kPerfAttrSizeVer0 = 64;   // first published
inline constexpr uint32_t kPerfAttrSizeVer1 = 72;   // config2
inline constexpr uint32_t kPerfAttrSizeVer2 = 80;   // branch_sample_type
inline constexpr uint32_t kPerfAttrSizeVer3 = 96;   // sample_regs_user, sample_stack_user, clockid
inline constexpr uint32_t kPerfAttrSizeVer4 = 104;  // sample_regs_intr
inline constexpr uint32_t kPerfAttrSizeVer5 = 112;  // aux_watermark, sample_max_stack
inline constexpr uint32_t kPerfAttrSizeVer6 = 120;  // aux_sample_size
inline constexpr uint32_t kPerfAttrSizeVer7 = 128;  // sig_data (Linux 5.13; perf 6.1's size)
inline constexpr uint32_t kPerfAttrSizeVer8 = 136;  // config3 (Linux 6.3)

struct perf_event_attr {
  uint32_t type;
  uint32_t size;
  uint64_t config;
  union {
    uint64_t sample_period;
    uint64_t sample_freq;
  };
  uint64_t sample_type;
  uint64_t read_format;

  uint64_t disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1, exclude_kernel : 1,
      exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1, inherit_stat : 1, enable_on_exec : 1,
      task : 1, watermark : 1, precise_ip : 2, mmap_data : 1, sample_id_all : 1, exclude_host : 1,
      exclude_guest : 1, exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
      use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1, ksymbol : 1, bpf_event : 1,
      aux_output : 1, cgroup : 1, text_poke : 1, build_id : 1, inherit_thread : 1, remove_on_exec : 1,
      sigtrap : 1, __reserved_1 : 26;

  union {
    uint32_t wakeup_events;
    uint32_t wakeup_watermark;
  };
  uint32_t bp_type;
  union {
    uint64_t bp_addr;
    uint64_t kprobe_func;
    uint64_t uprobe_path;
    uint64_t config1;
  };
  // ---- VER0 ends here (64 bytes)
  union {
    uint64_t bp_len;
    uint64_t kprobe_addr;
    uint64_t probe_offset;
    uint64_t config2;
  };
  uint64_t branch_sample_type;
  uint64_t sample_regs_user;
  uint32_t sample_stack_user;
  int32_t clockid;
  uint64_t sample_regs_intr;
  uint32_t aux_watermark;
  uint16_t sample_max_stack;
  uint16_t __reserved_2;
  uint32_t aux_sample_size;
  uint32_t __reserved_3;
  uint64_t sig_data;
  uint64_t config3;
};
static_assert(sizeof(perf_event_attr) == kPerfAttrSizeVer8);
static_assert(offsetof(perf_event_attr, size) == 4);
static_assert(offsetof(perf_event_attr, sample_type) == 24);
static_assert(offsetof(perf_event_attr, read_format) == 32);
static_assert(offsetof(perf_event_attr, wakeup_events) == 48);
static_assert(offsetof(perf_event_attr, config1) == 56);
// Each version's first field sits where the previous version ended.
static_assert(offsetof(perf_event_attr, config2) == kPerfAttrSizeVer0);
static_assert(offsetof(perf_event_attr, branch_sample_type) == kPerfAttrSizeVer1);
static_assert(offsetof(perf_event_attr, sample_regs_user) == kPerfAttrSizeVer2);
static_assert(offsetof(perf_event_attr, sample_stack_user) == 88);
static_assert(offsetof(perf_event_attr, clockid) == 92);
static_assert(offsetof(perf_event_attr, sample_regs_intr) == kPerfAttrSizeVer3);
static_assert(offsetof(perf_event_attr, aux_watermark) == kPerfAttrSizeVer4);
static_assert(offsetof(perf_event_attr, sample_max_stack) == 108);
static_assert(offsetof(perf_event_attr, aux_sample_size) == kPerfAttrSizeVer5);
static_assert(offsetof(perf_event_attr, sig_data) == kPerfAttrSizeVer6);
static_assert(offsetof(perf_event_attr, config3) == kPerfAttrSizeVer7);

struct perf_event_header {
  uint32_t type;
  uint16_t misc;
  uint16_t size;
};
static_assert(sizeof(perf_event_header) == 8);

// Record types (perf_event_header.type) the kernel writes.
enum perf_event_type : uint32_t {
  PERF_RECORD_MMAP = 1,
  PERF_RECORD_LOST = 2,
  PERF_RECORD_COMM = 3,
  PERF_RECORD_EXIT = 4,
  PERF_RECORD_THROTTLE = 5,
  PERF_RECORD_UNTHROTTLE = 6,
  PERF_RECORD_FORK = 7,
  PERF_RECORD_READ = 8,
  PERF_RECORD_SAMPLE = 9,
  PERF_RECORD_MMAP2 = 10,
  PERF_RECORD_AUX = 11,
  PERF_RECORD_ITRACE_START = 12,
  PERF_RECORD_LOST_SAMPLES = 13,
  PERF_RECORD_SWITCH = 14,
  PERF_RECORD_SWITCH_CPU_WIDE = 15,
  PERF_RECORD_NAMESPACES = 16,
  PERF_RECORD_KSYMBOL = 17,
  PERF_RECORD_BPF_EVENT = 18,
  PERF_RECORD_CGROUP = 19,
  PERF_RECORD_TEXT_POKE = 20,
  PERF_RECORD_AUX_OUTPUT_HW_ID = 21,
};

// Markers between the kernel and user parts of a call chain.
enum perf_callchain_context : uint64_t {
  PERF_CONTEXT_HV = static_cast<uint64_t>(-32),
  PERF_CONTEXT_KERNEL = static_cast<uint64_t>(-128),
  PERF_CONTEXT_USER = static_cast<uint64_t>(-512),
  PERF_CONTEXT_GUEST = static_cast<uint64_t>(-2048),
  PERF_CONTEXT_GUEST_KERNEL = static_cast<uint64_t>(-2176),
  PERF_CONTEXT_GUEST_USER = static_cast<uint64_t>(-2560),
  PERF_CONTEXT_MAX = static_cast<uint64_t>(-4095),
};

// The first page of an event's ring buffer mapping. sonde uses only the data_*
// words; the rest is spelled out so their offsets are the kernel's.
struct perf_event_mmap_page {
  uint32_t version;
  uint32_t compat_version;
  uint32_t lock;
  uint32_t index;
  int64_t offset;
  uint64_t time_enabled;
  uint64_t time_running;
  uint64_t capabilities;
  uint16_t pmc_width;
  uint16_t time_shift;
  uint32_t time_mult;
  uint64_t time_offset;
  uint64_t time_zero;
  uint32_t size;
  uint32_t __reserved_1;
  uint64_t time_cycles;
  uint64_t time_mask;
  uint8_t __reserved[116 * 8];  // to 1 KiB
  uint64_t data_head;
  uint64_t data_tail;
  uint64_t data_offset;
  uint64_t data_size;
  uint64_t aux_head;
  uint64_t aux_tail;
  uint64_t aux_offset;
  uint64_t aux_size;
};
static_assert(offsetof(perf_event_mmap_page, time_mask) == 88);
static_assert(offsetof(perf_event_mmap_page, data_head) == 1024);
static_assert(offsetof(perf_event_mmap_page, data_tail) == 1032);
static_assert(offsetof(perf_event_mmap_page, data_offset) == 1040);
static_assert(offsetof(perf_event_mmap_page, data_size) == 1048);
static_assert(sizeof(perf_event_mmap_page) == 1088);

// perf_event_open(2) flags and the ioctls sonde issues (the kernel's macros
// PERF_FLAG_FD_CLOEXEC and PERF_EVENT_IOC_*).
inline constexpr unsigned long kPerfFlagFdCloexec = 1UL << 3;
inline constexpr unsigned long kPerfEventIocEnable = _IO('$', 0);
inline constexpr unsigned long kPerfEventIocDisable = _IO('$', 1);
inline constexpr unsigned long kPerfEventIocSetOutput = _IO('$', 5);
inline constexpr unsigned long kPerfEventIocSetFilter = _IOW('$', 6, char*);
inline constexpr unsigned long kPerfEventIocId = _IOR('$', 7, uint64_t*);

}  // namespace sonde::uapi

namespace sonde {
// sonde's code names the kernel's definitions as the kernel does
// (perf_event_attr, PERF_SAMPLE_IP); they are visible inside namespace sonde
// only, never in the global namespace a system header may also fill.
using namespace uapi;
}  // namespace sonde
