#include "jit/jitdump.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "util/byte_reader.h"

namespace sonde::jit {

namespace {

// Lines and unwinding info wait for the load they describe (the spec puts
// them just before it).
struct Pending {
  uint64_t debug_addr = 0;
  uint32_t first_line = 0, line_count = 0;
  bool has_lines = false;
  uint64_t unwind_offset = 0, unwind_size = 0, eh_frame_hdr_size = 0;
  bool has_unwind = false;
};

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, JitDump& out) : bytes_(bytes), out_(out) {}

  void run() {
    if (!read_header()) return;
    size_t off = out_.header.total_size;
    while (off < bytes_.size()) {
      const size_t left = bytes_.size() - off;
      JitRecordPrefix p{};
      if (left < sizeof p) return stop(off, fmt::format("a record prefix needs 16 bytes, {} left", left));
      std::memcpy(&p, bytes_.data() + off, sizeof p);
      if (p.total_size < sizeof p) return stop(off, fmt::format("record size {} is below its prefix's", p.total_size));
      // A writer still appending leaves its last record short: that is the end, not an error.
      if (p.total_size > left) return stop(off, fmt::format("record of {} bytes with {} left", p.total_size, left));
      std::span<const uint8_t> rec = bytes_.subspan(off, p.total_size);
      if (!read_record(p, rec, off)) return;
      ++out_.records;
      off += p.total_size;
    }
  }

 private:
  bool read_header() {
    JitHeader& h = out_.header;
    if (bytes_.size() < sizeof h)
      return stop(0, fmt::format("a jitdump header is 40 bytes, the file has {}", bytes_.size())), false;
    std::memcpy(&h, bytes_.data(), sizeof h);
    if (h.magic == kJitMagicSwapped)
      return stop(0, "written on a machine of the other byte order (not supported)"), false;
    if (h.magic != kJitMagic) return stop(0, fmt::format("magic {:#x} is not a jitdump's", h.magic)), false;
    if (h.total_size < sizeof h || h.total_size > bytes_.size())
      return stop(0, fmt::format("header size {} outside 40..{}", h.total_size, bytes_.size())), false;
    return true;
  }

  bool read_record(const JitRecordPrefix& p, std::span<const uint8_t> rec, size_t off) {
    switch (p.id) {
      case kCodeLoad: return read_load(rec, off);
      case kCodeMove: return read_move(rec, off);
      case kCodeDebugInfo: return read_debug_info(rec, off);
      case kCodeUnwindingInfo: return read_unwinding_info(rec, off);
      case kCodeClose: out_.close_time = p.timestamp; return true;
      default: ++out_.unknown_records; return true;  // a later version's record: its size lets us skip it
    }
  }

  bool read_load(std::span<const uint8_t> rec, size_t off) {
    ByteReader r(rec);
    JitCodeLoadRecord l{};
    std::string_view name;
    if (!r.read(l)) return stop(off, "JIT_CODE_LOAD shorter than its fixed part"), false;
    if (!r.cstring(name)) return stop(off, "JIT_CODE_LOAD name without its NUL"), false;
    if (l.code_size > r.remaining())
      return stop(off, fmt::format("JIT_CODE_LOAD of {} code bytes with {} in the record", l.code_size, r.remaining())),
             false;
    if (l.code_addr + l.code_size < l.code_addr) return stop(off, "JIT_CODE_LOAD address range wraps"), false;
    JitCode c;
    c.time = l.p.timestamp;
    c.addr = l.code_addr;
    c.size = l.code_size;
    c.code_offset = off + r.offset();
    c.index = l.code_index;
    c.name = name;
    c.pid = l.pid;
    c.tid = l.tid;
    if (pending_.has_lines && pending_.debug_addr == l.code_addr) {
      c.first_line = pending_.first_line;
      c.line_count = pending_.line_count;
    }
    if (pending_.has_unwind) {
      c.unwind_offset = pending_.unwind_offset;
      c.unwind_size = pending_.unwind_size;
      c.eh_frame_hdr_size = pending_.eh_frame_hdr_size;
    }
    pending_ = {};
    out_.code.push_back(c);
    return true;
  }

  bool read_move(std::span<const uint8_t> rec, size_t off) {
    JitCodeMoveRecord m{};
    if (rec.size() < sizeof m) return stop(off, "JIT_CODE_MOVE shorter than its fixed part"), false;
    std::memcpy(&m, rec.data(), sizeof m);
    if (m.new_code_addr + m.code_size < m.new_code_addr) return stop(off, "JIT_CODE_MOVE address range wraps"), false;
    // The moved code keeps its name and bytes: those of its last placement.
    const JitCode* from = nullptr;
    for (auto it = out_.code.rbegin(); it != out_.code.rend() && !from; ++it)
      if (it->addr == m.old_code_addr && it->index == m.code_index) from = &*it;
    if (!from) return true;  // moving code the dump never loaded: nothing to name it by
    JitCode c = *from;
    c.time = m.p.timestamp;
    c.addr = m.new_code_addr;
    c.size = std::min(c.size, m.code_size);
    c.moved = true;
    out_.code.push_back(c);
    return true;
  }

  bool read_debug_info(std::span<const uint8_t> rec, size_t off) {
    ByteReader r(rec);
    JitDebugInfoRecord d{};
    if (!r.read(d)) return stop(off, "JIT_CODE_DEBUG_INFO shorter than its fixed part"), false;
    // Each entry takes at least 17 bytes: the count cannot ask for more.
    if (d.nr_entry > r.remaining() / (sizeof(JitDebugEntry) + 1))
      return stop(off, fmt::format("JIT_CODE_DEBUG_INFO claims {} entries in {} bytes", d.nr_entry, r.remaining())),
             false;
    pending_.debug_addr = d.code_addr;
    pending_.first_line = static_cast<uint32_t>(out_.lines.size());
    pending_.has_lines = true;
    std::string_view previous;
    for (uint64_t i = 0; i < d.nr_entry; ++i) {
      JitDebugEntry e{};
      std::string_view file;
      if (!r.read(e) || !entry_name(r, e, i + 1 == d.nr_entry, file)) {
        out_.lines.resize(pending_.first_line);
        pending_.has_lines = false;
        return stop(off, fmt::format("JIT_CODE_DEBUG_INFO entry {} runs past the record", i)), false;
      }
      if (file == "\xff") file = previous;
      previous = file;
      if (!printable(file)) file = {};  // the code's name may say the file (jitdump_srcline)
      out_.lines.push_back({e.addr, static_cast<uint32_t>(std::max(e.lineno, 0)), static_cast<uint32_t>(std::max(e.discrim, 0)), file});
    }
    pending_.line_count = static_cast<uint32_t>(out_.lines.size() - pending_.first_line);
    return true;
  }

  // An entry's file name, up to its NUL. Node 20's V8 writes the right
  // number of bytes from freed memory instead of the name, NULs included:
  // the name then ends at the first NUL after which the next entry is
  // plausible (its address at or above this one's, by less than 16 MiB) or,
  // for the last entry, only the record's padding is left. At most
  // kMaxNameScan bytes are looked at, so a hostile record costs its size.
  static bool entry_name(ByteReader& r, const JitDebugEntry& e, bool last, std::string_view& name) {
    constexpr size_t kMaxNameScan = 4096;
    const uint8_t* p = r.pos();
    const size_t left = r.remaining(), scan = std::min(left, kMaxNameScan);
    size_t first_nul = SIZE_MAX;
    for (size_t n = 0; n < scan; ++n) {
      if (p[n] != 0) continue;
      if (first_nul == SIZE_MAX) first_nul = n;
      const size_t after = left - n - 1;
      bool fits = false;
      if (last) {
        fits = after < 8;
      } else if (after >= sizeof(JitDebugEntry)) {
        uint64_t next = 0;
        std::memcpy(&next, p + n + 1, sizeof next);
        fits = next >= e.addr && next - e.addr < (16u << 20);
      }
      if (fits) return take_name(r, n, name);
    }
    return first_nul != SIZE_MAX && take_name(r, first_nul, name);
  }
  static bool take_name(ByteReader& r, size_t len, std::string_view& name) {
    name = {reinterpret_cast<const char*>(r.pos()), len};
    return r.skip(len + 1);
  }
  static bool printable(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
  }

  bool read_unwinding_info(std::span<const uint8_t> rec, size_t off) {
    ByteReader r(rec);
    JitUnwindingInfoRecord u{};
    if (!r.read(u)) return stop(off, "JIT_CODE_UNWINDING_INFO shorter than its fixed part"), false;
    if (u.unwinding_size > r.remaining() || u.eh_frame_hdr_size > u.unwinding_size)
      return stop(off, fmt::format("JIT_CODE_UNWINDING_INFO of {} bytes ({} of .eh_frame_hdr) with {} in the record",
                                   u.unwinding_size, u.eh_frame_hdr_size, r.remaining())),
             false;
    pending_.unwind_offset = off + r.offset();
    pending_.unwind_size = u.unwinding_size;
    pending_.eh_frame_hdr_size = u.eh_frame_hdr_size;
    pending_.has_unwind = true;
    return true;
  }

  void stop(size_t off, std::string why) { out_.stopped = fmt::format("at offset {}: {}", off, why); }

  std::span<const uint8_t> bytes_;
  JitDump& out_;
  Pending pending_;
};

}  // namespace

JitDump parse_jitdump(std::span<const uint8_t> bytes) {
  JitDump out;
  Parser(bytes, out).run();
  return out;
}

}  // namespace sonde::jit
