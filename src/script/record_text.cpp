#include "script/record_text.h"

#include <string>
#include <string_view>

#include "format/perf_abi.h"
#include "format/record_names.h"
#include "format/records.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

// C's "%#lx": no 0x before a zero.

void truncated(fmt::memory_buffer& out) { fmt::format_to(fmt::appender(out), " [truncated]\n"); }

void mmap_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto m = MmapView::parse(rec.bytes);
  if (!m) return truncated(out);
  fmt::format_to(fmt::appender(out), " {}/{}: [{}({}) @ {}]: {} {}\n", int32_t(m->pid), int32_t(m->tid), hex_or_zero(m->addr),
                 hex_or_zero(m->len), hex_or_zero(m->pgoff), (m->misc & kMiscMmapData) ? 'r' : 'x', m->filename);
}

// The view's reading of the build-id bit (a leaked bit is the inode form).
void mmap2_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto m = Mmap2View::parse(rec.bytes);
  if (!m) return truncated(out);
  auto it = fmt::appender(out);
  fmt::format_to(it, " {}/{}: [{}({}) @ {} ", int32_t(m->pid), int32_t(m->tid), hex_or_zero(m->addr), hex_or_zero(m->len), hex_or_zero(m->pgoff));
  if (m->has_build_id()) {
    out.push_back('<');
    for (uint8_t b : m->build_id) fmt::format_to(it, "{:02x}", b);
    out.push_back('>');
  } else {
    fmt::format_to(it, "{:02x}:{:02x} {} {}", m->maj, m->min, m->ino, m->ino_generation);
  }
  constexpr uint32_t kRead = 1, kWrite = 2, kExec = 4, kShared = 1;
  fmt::format_to(it, "]: {}{}{}{} {}\n", (m->prot & kRead) ? 'r' : '-', (m->prot & kWrite) ? 'w' : '-',
                 (m->prot & kExec) ? 'x' : '-', (m->flags & kShared) ? 's' : 'p', m->filename);
}

void comm_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto c = CommView::parse(rec.bytes);
  if (!c) return truncated(out);
  fmt::format_to(fmt::appender(out), "{}: {}:{}/{}\n", c->exec() ? " exec" : "", c->comm, int32_t(c->pid),
                 int32_t(c->tid));
}

void fork_exit_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto f = ForkExitView::parse(rec.bytes);
  if (!f) return truncated(out);
  fmt::format_to(fmt::appender(out), "({}:{}):({}:{})\n", int32_t(f->pid), int32_t(f->tid), int32_t(f->ppid),
                 int32_t(f->ptid));
}

// perf's perf_event__fprintf_ksymbol and _bpf.
void ksymbol_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto k = KsymbolView::parse(rec.bytes);
  if (!k) return truncated(out);
  fmt::format_to(fmt::appender(out), " addr {:x} len {} type {} flags {:#x} name {}\n", k->addr, k->len, k->ksym_type,
                 k->flags, k->name);
}

void bpf_event_text(const RecordView& rec, fmt::memory_buffer& out) {
  auto b = BpfEventView::parse(rec.bytes);
  if (!b) return truncated(out);
  fmt::format_to(fmt::appender(out), " type {}, flags {}, id {}\n", b->type, b->flags, b->id);
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

std::string hex_or_zero(uint64_t v) { return v ? fmt::format("{:#x}", v) : "0"; }

}  // namespace sonde::script
