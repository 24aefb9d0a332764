// jitdump: the file a JIT writes beside its code (jit-PID.dump, announced to
// perf by an executable mmap of it), as perf's tools/perf/Documentation/
// jitdump-specification.txt describes it and V8 (`node --perf-prof`), the
// JVM agents, wasmtime and Python 3.12 write it. A header, then records each
// with a prefix {id, total_size, timestamp}: JIT_CODE_LOAD carries a
// function's name and its code bytes, JIT_CODE_MOVE moves code,
// JIT_CODE_DEBUG_INFO gives source lines for the next load of the same
// address, JIT_CODE_UNWINDING_INFO gives .eh_frame bytes for the next load,
// JIT_CODE_CLOSE ends the file.
//
// The on-disk structs below are the spec's; parse_jitdump reads untrusted
// bytes with every length checked against the bytes left (never a count
// beyond what the record holds), so a corrupt or truncated dump costs what
// reading it costs and ends with a reason, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::jit {

inline constexpr uint32_t kJitMagic = 0x4A695444;         // "JiTD" in the writer's byte order
inline constexpr uint32_t kJitMagicSwapped = 0x4454694A;  // written on a machine of the other order
inline constexpr uint64_t kFlagArchTimestamp = 1;         // timestamps are the CPU's counter, not a clock

struct JitHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t total_size;  // of this header
  uint32_t elf_mach;    // EM_* of the code
  uint32_t pad1;
  uint32_t pid;
  uint64_t timestamp;
  uint64_t flags;
};
static_assert(sizeof(JitHeader) == 40);

enum JitRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeMove = 1,
  kCodeDebugInfo = 2,
  kCodeClose = 3,
  kCodeUnwindingInfo = 4,
};

struct JitRecordPrefix {
  uint32_t id;
  uint32_t total_size;  // of the record, prefix included
  uint64_t timestamp;
};
static_assert(sizeof(JitRecordPrefix) == 16);

// Followed by the NUL-terminated name, then code_size bytes of code.
struct JitCodeLoadRecord {
  JitRecordPrefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t code_addr;
  uint64_t code_size;
  uint64_t code_index;
};
static_assert(sizeof(JitCodeLoadRecord) == 56);

struct JitCodeMoveRecord {
  JitRecordPrefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t old_code_addr;
  uint64_t new_code_addr;
  uint64_t code_size;
  uint64_t code_index;
};
static_assert(sizeof(JitCodeMoveRecord) == 64);

// Followed by nr_entry JitDebugEntry, each followed by its file name
// (NUL-terminated; "\xff\0" repeats the previous entry's name).
struct JitDebugInfoRecord {
  JitRecordPrefix p;
  uint64_t code_addr;
  uint64_t nr_entry;
};
static_assert(sizeof(JitDebugInfoRecord) == 32);

struct JitDebugEntry {
  uint64_t addr;
  int32_t lineno;
  int32_t discrim;  // V8 writes the column here
};
static_assert(sizeof(JitDebugEntry) == 16);

// Followed by unwinding_size bytes: .eh_frame_hdr (eh_frame_hdr_size bytes
// at the end) after the .eh_frame; mapped_size is how much of it is mapped.
struct JitUnwindingInfoRecord {
  JitRecordPrefix p;
  uint64_t unwinding_size;
  uint64_t eh_frame_hdr_size;
  uint64_t mapped_size;
};
static_assert(sizeof(JitUnwindingInfoRecord) == 40);

// One source line of JIT code.
struct JitLine {
  uint64_t addr;
  uint32_t line;
  uint32_t column;
  std::string_view file;  // into the parsed bytes
};

// Where code lived: a JIT_CODE_LOAD, or a JIT_CODE_MOVE of loaded code.
struct JitCode {
  uint64_t time = 0;         // the record's timestamp
  uint64_t addr = 0;         // where the code runs from `time` on
  uint64_t size = 0;
  uint64_t code_offset = 0;  // file offset of its bytes in the dump (a move: the loaded bytes)
  uint64_t index = 0;        // the writer's code_index
  std::string_view name;     // into the parsed bytes
  uint32_t pid = 0, tid = 0;
  uint32_t first_line = 0, line_count = 0;  // JitDump::lines of this code (loads only)
  uint64_t unwind_offset = 0, unwind_size = 0, eh_frame_hdr_size = 0;  // file range of its UNWINDING_INFO, if any
  bool moved = false;        // a JIT_CODE_MOVE
};

struct JitDump {
  JitHeader header{};
  std::vector<JitCode> code;   // in file order
  std::vector<JitLine> lines;  // grouped per load (JitCode::first_line)
  uint64_t close_time = 0;     // JIT_CODE_CLOSE's timestamp, 0 if none
  uint64_t records = 0;        // records read
  uint64_t unknown_records = 0;
  // Why reading stopped before the end of the bytes ("" when it did not):
  // one line naming the offset and what was wrong there.
  std::string stopped;
};

// Parses `bytes` (the whole dump); never throws. Records up to the first bad
// one are kept, and `stopped` says why the rest was not. A header that is
// not a jitdump's leaves `code` empty with the reason in `stopped`.
JitDump parse_jitdump(std::span<const uint8_t> bytes);

}  // namespace sonde::jit
