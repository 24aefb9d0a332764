#include "script/script_fields.h"

#include <array>
#include <utility>

#include "script/script_printer.h"
#include "util/error.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 12> kNames = {{
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
}};

// perf prints a call chain's user frames at their address in the object
// (map_ip: the file offset for file mappings and the vdso), kernel and
// anonymous frames as they are.
uint64_t chain_address(const analysis::Frame& fr) {
  if (!fr.map || fr.kernel) return fr.addr;
  std::string_view p = fr.map->path;
  bool object = (p.starts_with("/") && !p.starts_with("//anon") && !p.starts_with("/dev/zero") &&
                 !p.starts_with("/anon_hugepage")) ||
                p == "[vdso]";
  return object ? fr.file_offset : fr.addr;
}

}  // namespace

uint32_t parse_script_fields(std::string_view list) {
  uint32_t fields = 0;
  while (true) {
    size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    uint32_t bit = 0;
    for (const auto& [n, b] : kNames)
      if (n == name) bit = b;
    if (!bit) {
      std::string known;
      for (const auto& [n, b] : kNames) known += (known.empty() ? "" : ",") + std::string(n);
      throw_usage("unknown field '{}' in -F (fields: {})", name, known);
    }
    fields |= bit;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  // As perf: an offset into a symbol that is not printed means nothing.
  if ((fields & kFieldSymOff) && !(fields & kFieldSym)) throw_usage("-F symoff needs sym");
  return fields;
}

// perf 6.1's builtin-script.c, field by field: perf_sample__fprintf_start
// for comm..time, then period, the event name padded to the longest name,
// the tracepoint fields, and the address (with the call chain below the
// line when there is one, else on it).
void ScriptPrinter::print_fields(const Sample& s) {
  const uint32_t f = options_.fields;
  auto out = fmt::appender(buf_);
  analysis::sample_frames(s, walker_.space(), frames_, options_.max_stack);
  // perf turns ip and sym on by itself for a recording with call chains
  // (unless -G): the chain is printed below the line, each frame with its
  // symbol, whatever -F says, and comm is not padded.
  const bool chain = !options_.hide_callchain && s.callchain_size() > 0;
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
  if (f & kFieldTime) {
    char t[48];
    auto n = options_.nanoseconds
                 ? fmt::format_to_n(t, sizeof t, "{}.{:09}", s.time / 1000000000, s.time % 1000000000).size
                 : fmt::format_to_n(t, sizeof t, "{}.{:06}", s.time / 1000000000, (s.time % 1000000000) / 1000).size;
    fmt::format_to(out, "{:>12}: ", std::string_view(t, std::min(n, sizeof t)));
  }
  if (f & kFieldPeriod) fmt::format_to(out, "{:>10} ", s.period);
  if (f & kFieldEvent) {
    if (!event_width_) {
      for (const auto& e : walker_.session().events()) event_width_ = std::max(event_width_, e.name.size());
      event_width_ = std::max<size_t>(event_width_, 1);
    }
    fmt::format_to(out, "{:>{}}: ", s.event->name, event_width_);
  }
  if (f & kFieldTrace) append_trace(s, "");
  if (chain) {
    buf_.push_back('\n');
    for (const analysis::Frame& fr : frames_) {
      buf_.push_back('\t');
      append_frame_fields(fr, s.pid, f | kFieldSym, true);
      buf_.push_back('\n');
    }
  } else if ((f & kFieldIp) && !frames_.empty()) {
    buf_.push_back(' ');
    append_frame_fields(frames_.front(), s.pid, f, false);  // the sampled address
  }
  // (Without ip and a chain, sym, symoff and dso add nothing, as in perf.)
  buf_.push_back('\n');
  if (buf_.size() > (1 << 16)) flush();
}

void ScriptPrinter::append_frame_fields(const analysis::Frame& fr, uint32_t pid, uint32_t f, bool in_chain) {
  auto out = fmt::appender(buf_);
  fmt::format_to(out, "{:>16x}", in_chain ? chain_address(fr) : fr.addr);
  if (!(f & (kFieldSym | kFieldSymOff | kFieldDso))) return;
  std::string_view dso = fr.map ? fr.map->path : std::string_view("[unknown]");
  analysis::SymbolName sym;
  if (symbols_) {
    sym = symbols_->symbolize(fr, pid);
    if (!sym.dso.empty()) dso = sym.dso;
  }
  if (f & (kFieldSym | kFieldSymOff)) {
    if (sym.name.empty()) fmt::format_to(out, " [unknown]");
    else if (f & kFieldSymOff) fmt::format_to(out, " {}+{:#x}", sym.name, sym.offset);
    else fmt::format_to(out, " {}", sym.name);
  }
  if (f & kFieldDso) fmt::format_to(out, " ({})", dso);
}

}  // namespace sonde::script
