#include "script/record_text.h"

#include <cstring>
#include <string>
#include <string_view>

#include "format/perf_abi.h"
#include "format/record_names.h"
#include "util/byte_reader.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

// C's "%#lx": no 0x before a zero.
std::string hex(uint64_t v) { return v ? fmt::format("{:#x}", v) : "0"; }

// The NUL-terminated name at `at` in the record, bounded by it.
std::string_view name_at(const RecordView& rec, size_t at) {
  if (at >= rec.bytes.size()) return {};
  const char* p = reinterpret_cast<const char*>(rec.bytes.data() + at);
  return std::string_view(p, strnlen(p, rec.bytes.size() - at));
}

template <typename T>
bool read_fixed(const RecordView& rec, T& out) {
  if (rec.bytes.size() < sizeof(T)) return false;
  std::memcpy(&out, rec.bytes.data(), sizeof(T));
  return true;
}

void mmap_text(const RecordView& rec, fmt::memory_buffer& out) {
  struct {
    RecordHeader header;
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
  } m;
  if (!read_fixed(rec, m)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  fmt::format_to(fmt::appender(out), " {}/{}: [{}({}) @ {}]: {} {}\n", int32_t(m.pid), int32_t(m.tid), hex(m.start),
                 hex(m.len), hex(m.pgoff), (rec.header.misc & kMiscMmapData) ? 'r' : 'x', name_at(rec, sizeof m));
}

void mmap2_text(const RecordView& rec, fmt::memory_buffer& out) {
  Mmap2Fixed m;
  if (!read_fixed(rec, m)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  auto it = fmt::appender(out);
  fmt::format_to(it, " {}/{}: [{}({}) @ {} ", int32_t(m.pid), int32_t(m.tid), hex(m.addr), hex(m.len), hex(m.pgoff));
  if (rec.header.misc & kMiscMmapBuildId) {
    out.push_back('<');
    for (uint8_t i = 0; i < std::min<uint8_t>(m.bid.build_id_size, kBuildIdMax); ++i)
      fmt::format_to(it, "{:02x}", m.bid.build_id[i]);
    out.push_back('>');
  } else {
    fmt::format_to(it, "{:02x}:{:02x} {} {}", m.inode.maj, m.inode.min, m.inode.ino, m.inode.ino_generation);
  }
  constexpr uint32_t kRead = 1, kWrite = 2, kExec = 4, kShared = 1;
  fmt::format_to(it, "]: {}{}{}{} {}\n", (m.prot & kRead) ? 'r' : '-', (m.prot & kWrite) ? 'w' : '-',
                 (m.prot & kExec) ? 'x' : '-', (m.flags & kShared) ? 's' : 'p', name_at(rec, sizeof m));
}

void comm_text(const RecordView& rec, fmt::memory_buffer& out) {
  CommFixed c;
  if (!read_fixed(rec, c)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  fmt::format_to(fmt::appender(out), "{}: {}:{}/{}\n", (rec.header.misc & kMiscCommExec) ? " exec" : "",
                 name_at(rec, sizeof c), int32_t(c.pid), int32_t(c.tid));
}

void fork_exit_text(const RecordView& rec, fmt::memory_buffer& out) {
  ForkExit f;
  if (!read_fixed(rec, f)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  fmt::format_to(fmt::appender(out), "({}:{}):({}:{})\n", int32_t(f.pid), int32_t(f.tid), int32_t(f.ppid),
                 int32_t(f.ptid));
}

// perf's perf_event__fprintf_ksymbol and _bpf.
void ksymbol_text(const RecordView& rec, fmt::memory_buffer& out) {
  KsymbolFixed k;
  if (!read_fixed(rec, k)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  fmt::format_to(fmt::appender(out), " addr {:x} len {} type {} flags {:#x} name {}\n", k.addr, k.len, k.ksym_type,
                 k.flags, name_at(rec, sizeof k));
}

void bpf_event_text(const RecordView& rec, fmt::memory_buffer& out) {
  BpfEvent b;
  if (!read_fixed(rec, b)) return fmt::format_to(fmt::appender(out), " [truncated]\n"), void();
  fmt::format_to(fmt::appender(out), " type {}, flags {}, id {}\n", b.type, b.flags, b.id);
}

}  // namespace

void append_record_text(const RecordView& rec, fmt::memory_buffer& out) {
  fmt::format_to(fmt::appender(out), "PERF_RECORD_{}", record_type_name(rec.header.type));
  switch (rec.header.type) {
    case kMmap: return mmap_text(rec, out);
    case kMmap2: return mmap2_text(rec, out);
    case kComm: return comm_text(rec, out);
    case kFork:
    case kExit: return fork_exit_text(rec, out);
    case kKsymbol: return ksymbol_text(rec, out);
    case kBpfEvent: return bpf_event_text(rec, out);
    default: out.push_back('\n');
  }
}

}  // namespace sonde::script
