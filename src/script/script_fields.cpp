#include "script/script_fields.h"

#include <array>
#include <utility>

#include "script/script_printer.h"
#include "util/mapped_path.h"
#include "util/error.h"
#include "util/text_join.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 16> kNames = {{
    {"comm", kFieldComm},
    {"pid", kFieldPid},
    {"tid", kFieldTid},
    {"cpu", kFieldCpu},
    {"time", kFieldTime},
    {"period", kFieldPeriod},
    {"event", kFieldEvent},
    {"trace", kFieldTrace},
    {"ip", kFieldIp},
    {"sym", kFieldSym},
    {"symoff", kFieldSymOff},
    {"dso", kFieldDso},
    {"srcline", kFieldSrcline},
    {"srccode", kFieldSrccode},
    {"insn", kFieldInsn},
    {"addr", kFieldAddr},
}};

// perf prints a call chain's user frames at their address in the object
// (map_ip: the file offset for file mappings and the vdso), kernel and
// anonymous frames as they are.
uint64_t chain_address(const analysis::Frame& fr) {
  if (!fr.map || fr.kernel) return fr.addr;
  const std::string_view p = fr.map->path;
  const MappedPath kind = classify_mapped_path(p);
  const bool object = kind == MappedPath::kVdso ||
                      (p.starts_with("/") && kind != MappedPath::kAnon && kind != MappedPath::kAnonHugepage &&
                       !p.starts_with("/dev/zero"));
  return object ? fr.file_offset : fr.addr;
}

}  // namespace

namespace {

uint32_t field_bit(std::string_view name) {
  for (const auto& [n, b] : kNames)
    if (n == name) return b;
  std::string known;
  for (const auto& [n, b] : kNames) append_separated(known, ",", n);
  throw_usage("unknown field '{}' in -F (fields: {})", name, known);
}

}  // namespace

FieldSelection default_script_fields() {
  constexpr uint32_t kStart = kFieldComm | kFieldTid | kFieldCpu | kFieldTime | kFieldEvent;
  FieldSelection sel;
  sel.enabled = true;
  sel.tracepoint = kStart | kFieldTrace;
  sel.other = kStart | kFieldPeriod | kFieldIp | kFieldSym | kFieldSymOff | kFieldDso;
  return sel;
}

FieldSelection parse_script_fields(std::string_view list) {
  enum class Change { kNone, kSet, kAdd, kRemove } mode = Change::kNone;
  FieldSelection sel = default_script_fields();
  uint32_t set = 0;
  const std::string_view whole = list;
  while (true) {
    size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    Change change = Change::kSet;
    if (!name.empty() && (name[0] == '+' || name[0] == '-')) {
      change = name[0] == '+' ? Change::kAdd : Change::kRemove;
      name.remove_prefix(1);
    }
    if ((mode == Change::kSet) != (change == Change::kSet) && mode != Change::kNone)
      throw_usage("-F '{}': either name the fields, or add and remove them with +name,-name (not both)", whole);
    mode = change;
    const uint32_t bit = field_bit(name);
    if (change == Change::kSet) {
      set |= bit;
    } else if (change == Change::kAdd) {
      sel.tracepoint |= bit;
      if (bit != kFieldTrace) sel.other |= bit;  // as perf: trace is for tracepoints only
      sel.removed &= ~bit;
    } else {
      sel.tracepoint &= ~bit, sel.other &= ~bit;
      sel.removed |= bit;
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  if (mode == Change::kSet) {
    sel.tracepoint = sel.other = set;
    sel.named = true;
  }
  // As perf: an offset into a symbol that is not printed means nothing.
  if ((sel.other & kFieldSymOff) && !(sel.other & kFieldSym)) throw_usage("-F symoff needs sym");
  if ((sel.tracepoint & kFieldSymOff) && !(sel.tracepoint & kFieldSym)) sel.tracepoint &= ~kFieldSymOff;
  // perf's words (it checks each event the recording has; tracepoints
  // without ip just print no line).
  if ((sel.other & kFieldSrcline) && !(sel.other & kFieldIp))
    throw_usage("Display of source line number requested but sample IP is not selected (-F srcline needs ip)");
  if (!(sel.tracepoint & kFieldIp)) sel.tracepoint &= ~kFieldSrcline;
  return sel;
}

// perf 6.1's builtin-script.c, field by field: perf_sample__fprintf_start
// for comm..time, then period, the event name padded to the longest name,
// the tracepoint fields, and the address (with the call chain below the
// line when there is one, else on it).
void ScriptPrinter::print_fields(const Sample& s) {
  uint32_t f = sample_fields(s);
  auto out = fmt::appender(buf_);
  analysis::sample_frames(s, walker_.space(), frames_, options_.max_stack);
  // Reading a pipe, perf turns ip and sym on by itself for events with call
  // chains (unless -G, or -F -ip / -sym); in file mode only -F ip prints
  // them. The chain is printed below the line, and comm is not padded.
  const uint32_t removed = options_.fields.removed;
  if (!options_.file_mode && !options_.hide_callchain && !(removed & kFieldIp) && s.callchain_size() > 0)
    f |= kFieldIp | ((removed & kFieldSym) ? 0u : uint32_t(kFieldSym));
  const bool chain = !options_.hide_callchain && s.callchain_size() > 0 && (f & kFieldIp);
  if (f & kFieldComm) {
    std::string_view comm = walker_.space().comm(s.pid, s.tid);
    if (comm.empty()) comm = ":-1";
    if (chain) fmt::format_to(out, "{} ", comm);
    else fmt::format_to(out, "{:>16} ", comm);
  }
  if ((f & kFieldPid) && (f & kFieldTid)) fmt::format_to(out, "{:>5}/{:<5} ", s.pid, s.tid);
  else if (f & kFieldPid) fmt::format_to(out, "{:>5} ", s.pid);
  else if (f & kFieldTid) fmt::format_to(out, "{:>5} ", s.tid);
  if (f & kFieldCpu) fmt::format_to(out, "[{:03}] ", s.cpu);
  if (f & kFieldTime) append_time(s.time);
  if (f & kFieldPeriod) fmt::format_to(out, "{:>10} ", s.period);
  if (f & kFieldEvent) {
    if (!event_width_) {
      for (const auto& e : walker_.session().events()) event_width_ = std::max(event_width_, e.name.size());
      event_width_ = std::max<size_t>(event_width_, 1);
    }
    fmt::format_to(out, "{:>{}}: ", s.event->name, event_width_);
  }
  if (f & kFieldTrace) append_trace(s, "");
  // perf's perf_sample__fprintf_addr (the data symbol it adds for page
  // faults is not printed yet: docs/compatibility.md).
  if ((f & kFieldAddr) && (s.event->attr.sample_type & PERF_SAMPLE_ADDR)) fmt::format_to(out, "{:>16x}", s.addr);
  if (chain) {
    buf_.push_back('\n');
    for (const analysis::Frame& fr : frames_) {
      buf_.push_back('\t');
      append_frame_fields(fr, s.pid, f, true);
      buf_.push_back('\n');
    }
  } else if ((f & kFieldIp) && !frames_.empty()) {
    buf_.push_back(' ');
    append_frame_fields(frames_.front(), s.pid, f, false);  // the sampled address
  }
  // (Without ip and a chain, sym, symoff and dso add nothing, as in perf.)
  if ((f & kFieldInsn) && !frames_.empty()) append_insn(frames_.front());
  buf_.push_back('\n');
  if ((f & kFieldSrccode) && !frames_.empty()) append_srccode(frames_.front(), s.pid, s.tid);
  if (buf_.size() > (1 << 16)) flush();
}

// perf: "%12s" of SEC.USEC, or "%5lu.%09llu" with --ns.
void ScriptPrinter::append_time(uint64_t time) {
  auto out = fmt::appender(buf_);
  const uint64_t sec = time / 1000000000, ns = time % 1000000000;
  if (options_.nanoseconds) {
    fmt::format_to(out, "{:>5}.{:09}: ", sec, ns);
    return;
  }
  char t[48];
  auto n = fmt::format_to_n(t, sizeof t, "{}.{:06}", sec, ns / 1000).size;
  fmt::format_to(out, "{:>12}: ", std::string_view(t, std::min(n, sizeof t)));
}

uint32_t ScriptPrinter::sample_fields(const Sample& s) const {
  const bool tracepoint = s.event->attr.type == PERF_TYPE_TRACEPOINT;
  uint32_t f = tracepoint ? options_.fields.tracepoint : options_.fields.other;
  // Defaults that the samples cannot fill are dropped, as perf drops them.
  if (!(s.event->attr.sample_type & PERF_SAMPLE_CPU) && !options_.fields.named) f &= ~kFieldCpu;
  return f;
}

void ScriptPrinter::append_frame_fields(const analysis::Frame& fr, uint32_t pid, uint32_t f, bool in_chain) {
  auto out = fmt::appender(buf_);
  fmt::format_to(out, "{:>16x}", in_chain ? chain_address(fr) : fr.addr);
  if (f & (kFieldSym | kFieldSymOff | kFieldDso)) append_symbol_fields(fr, pid, f);
  if (f & kFieldSrcline) append_srcline(fr, pid);
}

void ScriptPrinter::append_symbol_fields(const analysis::Frame& fr, uint32_t pid, uint32_t f) {
  auto out = fmt::appender(buf_);
  // The mapping's name (util/mapped_path.h); the symbols name only a kernel module.
  std::string_view dso = fr.map ? fr.map->name : std::string_view("[unknown]");
  analysis::SymbolName sym;
  if (symbols_) {
    sym = symbols_->symbolize(fr, pid);
    if (!sym.dso.empty() && (!fr.map || fr.map->kernel)) dso = sym.dso;
  }
  if (f & (kFieldSym | kFieldSymOff)) {
    if (sym.name.empty()) fmt::format_to(out, " [unknown]");
    else if (f & kFieldSymOff) fmt::format_to(out, " {}+{:#x}", sym.name, sym.offset);
    else fmt::format_to(out, " {}", sym.name);
  }
  if (f & kFieldDso) fmt::format_to(out, " ({})", dso);
}

// perf's map__fprintf_srcline: "\n  file.c:12" from DWARF; a kernel frame
// without a vmlinux "[kernel.kallsyms][ADDR]"; nothing for code without
// lines or without a mapping.
void ScriptPrinter::append_srcline(const analysis::Frame& fr, uint32_t pid) {
  auto out = fmt::appender(buf_);
  if (fr.kernel) {
    fmt::format_to(out, "\n  [kernel.kallsyms][{:x}]", fr.addr);
    return;
  }
  SourceLine line;
  if (!fr.map || !symbols_ || !symbols_->source_line(fr, pid, line)) return;
  const size_t slash = line.file.rfind('/');
  fmt::format_to(out, "\n  {}:{}", slash == std::string_view::npos ? line.file : line.file.substr(slash + 1), line.line);
}

// perf's map__fprintf_srccode: "|LINE     text" for the sampled address,
// once per thread until its line changes.
void ScriptPrinter::append_srccode(const analysis::Frame& fr, uint32_t pid, uint32_t tid) {
  SourceLine line;
  if (fr.kernel || !fr.map || !symbols_ || !symbols_->source_line(fr, pid, line)) return;
  LastSource& last = last_source_[tid];
  if (last.file == line.file && last.line == line.line) return;
  const std::string file(line.file);
  auto text = source_text_.line(file, line.line);
  if (!text) return;
  fmt::format_to(fmt::appender(buf_), "|{:<8} {}\n", line.line, *text);
  last.file = file, last.line = line.line;
}

// perf 6.1 without --xed: " insn: 48 89 d0".
void ScriptPrinter::append_insn(const analysis::Frame& fr) {
  if (!insn_bytes_) return;
  auto bytes = insn_bytes_->at(fr);
  if (bytes.empty()) return;
  buf_.append(std::string_view(" insn:"));
  for (uint8_t b : bytes) fmt::format_to(fmt::appender(buf_), " {:02x}", b);
}

}  // namespace sonde::script
