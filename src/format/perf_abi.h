// The on-disk (and in-ring-buffer) layout of perf.data records, as perf 6.1
// reads them. Plain structs, checked with static_assert against the byte
// offsets docs/format.md gives (and perf 6.1 reads). Variable-length tails
// (filenames, sample fields) are not part of the structs. Records are read
// and built through format/records.h, which parses them bounds-checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "format/uapi/perf_event.h"

namespace sonde::format {

// The kernel's definitions (sonde's own copy, uapi/perf_event.h) come with
// `using namespace sonde::format`, as the format's other structs do.
using namespace uapi;

// perf_event_attr as sonde knows it: VER8, 136 bytes. Recordings carry attrs
// of every size from VER0 (64) up (attr_sizes.h); sonde writes the size the
// running kernel accepted (kernel/perf_event.h).
inline constexpr uint32_t kAttrSize = sizeof(perf_event_attr);
static_assert(kAttrSize == kPerfAttrSizeVer8);

inline constexpr uint64_t kMagic = 0x32454c4946524550ULL;         // "PERFILE2"
inline constexpr uint64_t kMagicSwapped = 0x50455246494c4532ULL;  // other endianness
inline constexpr uint64_t kPipeHeaderSize = 16;
inline constexpr uint64_t kFileHeaderSize = 104;

struct PipeHeader {
  uint64_t magic;
  uint64_t size;
};
static_assert(sizeof(PipeHeader) == 16);

struct RecordHeader {
  uint32_t type;
  uint16_t misc;
  uint16_t size;
};
static_assert(sizeof(RecordHeader) == 8);
static_assert(offsetof(RecordHeader, misc) == 4 && offsetof(RecordHeader, size) == 6);

// Record types: kernel 1..21, user 64..82 (perf 6.1's PERF_RECORD_HEADER_MAX = 83).
enum RecordType : uint32_t {
  kMmap = 1,
  kLost = 2,
  kComm = 3,
  kExit = 4,
  kThrottle = 5,
  kUnthrottle = 6,
  kFork = 7,
  kRead = 8,
  kSample = 9,
  kMmap2 = 10,
  kAux = 11,
  kItraceStart = 12,
  kLostSamples = 13,
  kSwitch = 14,
  kSwitchCpuWide = 15,
  kNamespaces = 16,
  kKsymbol = 17,
  kBpfEvent = 18,
  kCgroup = 19,
  kTextPoke = 20,
  kAuxOutputHwId = 21,
  kMaxKernelType = 21,  // the highest kernel type perf 6.1 accepts

  kHeaderAttr = 64,
  kHeaderEventType = 65,
  kHeaderTracingData = 66,
  kHeaderBuildId = 67,
  kFinishedRound = 68,
  kIdIndex = 69,
  kAuxtraceInfo = 70,
  kAuxtrace = 71,
  kAuxtraceError = 72,
  kThreadMap = 73,
  kCpuMap = 74,
  kStatConfig = 75,
  kStat = 76,
  kStatRound = 77,
  kEventUpdate = 78,
  kTimeConv = 79,
  kHeaderFeature = 80,
  kCompressed = 81,
  kFinishedInit = 82,
  kMaxUserType = 82,
};

// header.misc bits
inline constexpr uint16_t kMiscCpumodeMask = 7;
inline constexpr uint16_t kMiscKernel = 1;
inline constexpr uint16_t kMiscUser = 2;
inline constexpr uint16_t kMiscHypervisor = 3;
inline constexpr uint16_t kMiscGuestKernel = 4;
inline constexpr uint16_t kMiscGuestUser = 5;
inline constexpr uint16_t kMiscMmapData = 1 << 13;
inline constexpr uint16_t kMiscCommExec = 1 << 13;
inline constexpr uint16_t kMiscForkExec = 1 << 13;
inline constexpr uint16_t kMiscMmapBuildId = 1 << 14;
inline constexpr uint16_t kMiscBuildIdSize = 1 << 15;  // on HEADER_BUILD_ID only

// Callchain context markers.
inline constexpr uint64_t kContextHv = static_cast<uint64_t>(-32);
inline constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
inline constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);
inline constexpr uint64_t kContextGuest = static_cast<uint64_t>(-2048);
inline constexpr uint64_t kContextGuestKernel = static_cast<uint64_t>(-2176);
inline constexpr uint64_t kContextGuestUser = static_cast<uint64_t>(-2560);
inline constexpr uint64_t kContextMax = static_cast<uint64_t>(-4095);

inline constexpr size_t kBuildIdMax = 20;

// MMAP2 body up to the filename. The 24-byte union at +40 holds either the
// inode form or the build-id form (misc bit 14); both have the same size so a
// record can be rewritten in place.
struct Mmap2Fixed {
  RecordHeader header;
  uint32_t pid, tid;
  uint64_t addr;
  uint64_t len;
  uint64_t pgoff;
  union {
    struct {
      uint32_t maj;
      uint32_t min;
      uint64_t ino;
      uint64_t ino_generation;
    } inode;
    struct {
      uint8_t build_id_size;
      uint8_t reserved1;
      uint16_t reserved2;
      uint8_t build_id[kBuildIdMax];
    } bid;
  };
  uint32_t prot, flags;
  // char filename[] (NUL-terminated, padded to 8), then the sample_id trailer
};
static_assert(sizeof(Mmap2Fixed) == 72);
static_assert(offsetof(Mmap2Fixed, pid) == 8);
static_assert(offsetof(Mmap2Fixed, addr) == 16);
static_assert(offsetof(Mmap2Fixed, pgoff) == 32);
static_assert(offsetof(Mmap2Fixed, inode) == 40);
static_assert(offsetof(Mmap2Fixed, prot) == 64);
static_assert(offsetof(Mmap2Fixed, flags) == 68);

struct MmapFixed {
  RecordHeader header;
  uint32_t pid, tid;
  uint64_t addr;
  uint64_t len;
  uint64_t pgoff;
  // char filename[]
};
static_assert(sizeof(MmapFixed) == 40);

struct CommFixed {
  RecordHeader header;
  uint32_t pid, tid;
  // char comm[]
};
static_assert(sizeof(CommFixed) == 16);

// FORK and EXIT share one layout.
struct ForkExit {
  RecordHeader header;
  uint32_t pid, ppid;
  uint32_t tid, ptid;
  uint64_t time;
};
static_assert(sizeof(ForkExit) == 32);

// KSYMBOL: a kernel symbol registered or unregistered at run time (BPF
// programs, trampolines); its NUL-terminated name follows.
struct KsymbolFixed {
  RecordHeader header;
  uint64_t addr;
  uint32_t len;
  uint16_t ksym_type, flags;
};
static_assert(sizeof(KsymbolFixed) == 24);

// BPF_EVENT: a BPF program loaded or unloaded.
struct BpfEvent {
  RecordHeader header;
  uint16_t type, flags;
  uint32_t id;
  uint8_t tag[8];
};
static_assert(sizeof(BpfEvent) == 24);

struct Lost {
  RecordHeader header;
  uint64_t id;
  uint64_t lost;
};
static_assert(sizeof(Lost) == 24);

// READ (8)'s fixed part: the thread, then the first read_format value (the
// count); the rest (enabled, running, id, lost) follow as read_format says.
struct ReadFixed {
  RecordHeader header;
  uint32_t pid, tid;
  uint64_t value;
};
static_assert(sizeof(ReadFixed) == 24);

struct LostSamples {
  RecordHeader header;
  uint64_t lost;
};
static_assert(sizeof(LostSamples) == 16);

struct ThrottleRecord {
  RecordHeader header;
  uint64_t time;
  uint64_t id;
  uint64_t stream_id;
};
static_assert(sizeof(ThrottleRecord) == 32);

// HEADER_TRACING_DATA: the blob of `size` bytes follows the 16-byte record
// and is not counted by header.size.
struct TracingDataRecord {
  RecordHeader header;
  uint32_t size;
  uint32_t pad;
};
static_assert(sizeof(TracingDataRecord) == 16);

// HEADER_BUILD_ID (67).
struct BuildIdRecordFixed {
  RecordHeader header;
  int32_t pid;
  uint8_t build_id[kBuildIdMax];
  uint8_t size;
  uint8_t reserved1;
  uint16_t reserved2;
  // char filename[]
};
static_assert(sizeof(BuildIdRecordFixed) == 36);
static_assert(offsetof(BuildIdRecordFixed, size) == 32);

struct EventUpdateFixed {
  RecordHeader header;
  uint64_t type;
  uint64_t id;
  // payload
};
static_assert(sizeof(EventUpdateFixed) == 24);
inline constexpr uint64_t kEventUpdateUnit = 0;
inline constexpr uint64_t kEventUpdateScale = 1;
inline constexpr uint64_t kEventUpdateName = 2;
inline constexpr uint64_t kEventUpdateCpus = 3;

struct FeatureFixed {
  RecordHeader header;
  uint64_t feat_id;
};
static_assert(sizeof(FeatureFixed) == 16);

// perf stat record's records (tools/lib/perf/include/perf/event.h).
// THREAD_MAP (73): `nr` entries follow.
struct ThreadMapFixed {
  RecordHeader header;
  uint64_t nr;
};
static_assert(sizeof(ThreadMapFixed) == 16);
struct ThreadMapEntry {
  uint64_t pid;  // -1: every thread
  char comm[16];
};
static_assert(sizeof(ThreadMapEntry) == 24);

// CPU_MAP (74): a u16 type, then by type: CPUS {u16 nr; u16 cpu[nr]}
// (-1 as 0xffff), MASK {u16 nr; u16 long_size; (u32 pad when 8;) mask words},
// RANGE {u8 any_cpu; u8 pad; u16 start; u16 end} (perf >= 6.2, Debian's 6.1).
// (Not a struct: the u16 type leaves the data at offset 10, unaligned.)
inline constexpr size_t kCpuMapDataOffset = sizeof(RecordHeader) + sizeof(uint16_t);
inline constexpr uint16_t kCpuMapCpus = 0;
inline constexpr uint16_t kCpuMapMask = 1;
inline constexpr uint16_t kCpuMapRange = 2;

// STAT_CONFIG (75): `nr` {tag, val} terms follow.
struct StatConfigFixed {
  RecordHeader header;
  uint64_t nr;
};
static_assert(sizeof(StatConfigFixed) == 16);
struct StatConfigTerm {
  uint64_t tag;
  uint64_t val;
};
static_assert(sizeof(StatConfigTerm) == 16);
inline constexpr uint64_t kStatConfigAggrMode = 0;
inline constexpr uint64_t kStatConfigInterval = 1;
inline constexpr uint64_t kStatConfigScale = 2;

// STAT (76): one counter's reading; cpu is the CPU number (-1: any),
// thread an index into the THREAD_MAP.
struct StatRecord {
  RecordHeader header;
  uint64_t id;
  uint32_t cpu;
  uint32_t thread;
  uint64_t val, ena, run;
};
static_assert(sizeof(StatRecord) == 48);
static_assert(offsetof(StatRecord, val) == 24);

// STAT_ROUND (77): the STAT records since the previous round form one
// reading; `time` is ns since the start (interval) or the elapsed time (final).
struct StatRoundRecord {
  RecordHeader header;
  uint64_t type;
  uint64_t time;
};
static_assert(sizeof(StatRoundRecord) == 24);
inline constexpr uint64_t kStatRoundInterval = 0;
inline constexpr uint64_t kStatRoundFinal = 1;

// AUXTRACE (71): `size` payload bytes follow the record.
struct AuxtraceFixed {
  RecordHeader header;
  uint64_t size;
};

// Feature ids (perf 6.1 header.h). Pipe mode ends the features with kFeatLast.
enum FeatureId : uint64_t {
  kFeatTracingData = 1,
  kFeatBuildId = 2,
  kFeatHostname = 3,
  kFeatOsRelease = 4,
  kFeatVersion = 5,
  kFeatArch = 6,
  kFeatNrCpus = 7,
  kFeatCpuDesc = 8,
  kFeatCpuId = 9,
  kFeatTotalMem = 10,
  kFeatCmdline = 11,
  kFeatEventDesc = 12,
  kFeatCpuTopology = 13,
  kFeatNumaTopology = 14,
  kFeatBranchStack = 15,
  kFeatPmuMappings = 16,
  kFeatGroupDesc = 17,
  kFeatAuxtrace = 18,
  kFeatStat = 19,
  kFeatCache = 20,
  kFeatSampleTime = 21,
  kFeatMemTopology = 22,
  kFeatClockId = 23,
  kFeatDirFormat = 24,
  kFeatBpfProgInfo = 25,
  kFeatBpfBtf = 26,
  kFeatCompressed = 27,
  kFeatCpuPmuCaps = 28,
  kFeatClockData = 29,
  kFeatHybridTopology = 30,
  kFeatPmuCaps = 31,
  kFeatLast = 32,  // the end marker in pipe mode; also the bitmap's size limit
};

// Payload of feature COMPRESSED (27), as perf 6.1 writes it for -z: readers
// size their decompression buffer by mmap_len, so no COMPRESSED record may
// expand to more than that. ratio is 0 in pipe mode (it is known only at the end).
struct CompressedFeature {
  uint32_t version;   // 0
  uint32_t type;      // kCompressionZstd
  uint32_t level;
  uint32_t ratio;
  uint32_t mmap_len;  // bytes
};
static_assert(sizeof(CompressedFeature) == 20);
static_assert(offsetof(CompressedFeature, mmap_len) == 16);
inline constexpr uint32_t kCompressionZstd = 1;

// File-mode header (perf record without -o -): read by file_mode_reader,
// written by file_mode_writer (`convert --to perf`).
struct FileSection {
  uint64_t offset;
  uint64_t size;
};
struct FileHeader {
  uint64_t magic;
  uint64_t size;
  uint64_t attr_size;
  FileSection attrs;
  FileSection data;
  FileSection event_types;
  uint64_t features[4];  // 256-bit bitmap
};
static_assert(sizeof(FileHeader) == 104);
static_assert(offsetof(FileHeader, attrs) == 24);
static_assert(offsetof(FileHeader, data) == 40);
static_assert(offsetof(FileHeader, features) == 72);

// Bit 34 of the attr flag word: the kernel's build-id-in-MMAP2 request.
inline constexpr uint64_t kAttrFlagBuildId = 1ULL << 34;

}  // namespace sonde::format
