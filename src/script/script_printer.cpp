#include "script/script_printer.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"

namespace sonde::script {

using namespace sonde::format;

namespace {

// The header writers below write into a buffer with at least kSlack bytes
// to spare past what they keep, so digits are copied with one fixed-size
// copy (no per-field memcpy call).
constexpr size_t kSlack = 32;

// v's decimal digits, ending at `end` (written backwards, two at a time);
// returns the first digit.
char* digits_before(char* end, uint64_t v) {
  static constexpr char kPairs[] =
      "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
      "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
  while (v >= 100) {
    const size_t r = static_cast<size_t>(v % 100);
    v /= 100;
    end -= 2;
    end[0] = kPairs[2 * r], end[1] = kPairs[2 * r + 1];
  }
  if (v >= 10) {
    end -= 2;
    end[0] = kPairs[2 * v], end[1] = kPairs[2 * v + 1];
  } else {
    *--end = static_cast<char>('0' + v);
  }
  return end;
}

// v right-aligned in `width` columns (fill ' ' or '0'); wider values are
// written whole, as printf does.
char* put_right(char* p, uint64_t v, int width, char fill) {
  char tmp[48];
  char* first = digits_before(tmp + 24, v);
  const int n = static_cast<int>(tmp + 24 - first);
  for (int i = n; i < width; ++i) *p++ = fill;
  __builtin_memcpy(p, first, 24);  // at most 20 digits; the rest is slack
  return p + n;
}

char* put_decimal(char* p, uint64_t v) { return put_right(p, v, 0, ' '); }

char* put_left(char* p, uint64_t v, int width) {
  char* start = p;
  p = put_decimal(p, v);
  while (p - start < width) *p++ = ' ';
  return p;
}

char* put_text(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// "COMM PID/TID [CPU] SEC.USEC: PERIOD EVENT:" exactly as the format
// "{} {:>7}/{:<7} [{:03}] {}.{:06}: {:>10} {}:" gives it. Written by hand:
// this line is written once per sample and was a third of `sonde script`'s
// time through fmt's run-time format parsing.
void append_sample_header(fmt::memory_buffer& buf, std::string_view comm, const Sample& s, std::string_view event,
                          bool nanoseconds) {
  const size_t at = buf.size();
  // Six numbers of at most 20 digits each, their paddings, 14 fixed characters.
  buf.resize(at + comm.size() + event.size() + 160 + kSlack);
  char* p = buf.data() + at;
  p = put_text(p, comm);
  *p++ = ' ';
  p = put_right(p, s.pid, 7, ' ');
  *p++ = '/';
  p = put_left(p, s.tid, 7);
  p = put_text(p, " [");
  p = put_right(p, s.cpu, 3, '0');
  p = put_text(p, "] ");
  p = put_decimal(p, s.time / 1000000000);
  *p++ = '.';
  if (nanoseconds) p = put_right(p, s.time % 1000000000, 9, '0');
  else p = put_right(p, (s.time % 1000000000) / 1000, 6, '0');
  p = put_text(p, ": ");
  p = put_right(p, s.period, 10, ' ');
  *p++ = ' ';
  p = put_text(p, event);
  *p++ = ':';
  buf.resize(static_cast<size_t>(p - buf.data()));
}

}  // namespace

ScriptPrinter::ScriptPrinter(const analysis::RecordingWalker& walker, analysis::FrameSymbols* symbols, ScriptOptions options,
                             std::FILE* out)
    : walker_(walker), symbols_(symbols), options_(options), out_(out) {
  if (options_.instruction_length) insn_bytes_ = std::make_unique<InsnBytes>(options_.instruction_length);
}

ScriptPrinter::~ScriptPrinter() {
  try {
    flush();
  } catch (...) {
  }
}

void ScriptPrinter::print_header_once() {
  if (header_done_) return;
  header_done_ = true;
  if (!options_.header) return;
  std::string text = options_.header();
  buf_.append(text.data(), text.data() + text.size());
}

void ScriptPrinter::flush() {
  print_header_once();
  if (buf_.size() == 0) return;
  size_t n = std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
  if (n == 0 || std::fflush(out_) != 0) throw_runtime("cannot write the output: {}", errno_text(errno));
}

void ScriptPrinter::print_frame(const analysis::Frame& f, uint32_t pid) {
  // A frame's lines depend only on its mapping and offset (the address is
  // fixed within a mapping): format them once, then copy.
  FrameKey key{f.map ? f.map->index : (f.kernel ? UINT32_MAX - 1 : UINT32_MAX), f.map ? f.file_offset : f.addr};
  auto [id, fresh] = frame_index_.find_or_insert(key, static_cast<uint32_t>(frame_spans_.size()));
  if (fresh) {
    fmt::memory_buffer text;
    format_frame(f, pid, text);
    frame_spans_.push_back({frame_text_.size(), text.size()});
    frame_text_.append(text.data(), text.size());
  }
  const auto [offset, size] = frame_spans_[id];
  const size_t at = buf_.size();
  buf_.resize(at + size);
  std::memcpy(buf_.data() + at, frame_text_.data() + offset, size);
}

namespace {

struct RawLocation {
  std::string_view dso;
  uint64_t offset;
};

// An object's frame is its path and file offset. The kernel's maps have no
// file: perf names the image's map after a reference symbol
// ("[kernel.kallsyms]_text") with pgoff = that symbol's address, and gives
// modules pgoff = 0 (sonde: their start), so the "file offset" of a kernel
// frame is its absolute address. Print the image as "[kernel.kallsyms]" with
// the offset from its reference symbol, and a module with the offset from
// its start.
RawLocation raw_location(const analysis::Mapping& m, uint64_t addr, uint64_t file_offset) {
  if (!m.kernel) return {m.path, file_offset};
  constexpr std::string_view kImage = "[kernel.kallsyms]";
  if (m.path.substr(0, kImage.size()) == kImage) return {kImage, addr - m.pgoff};
  return {m.path, addr - m.start};
}

}  // namespace

void ScriptPrinter::format_frame(const analysis::Frame& f, uint32_t pid, fmt::memory_buffer& buf) {
  auto out = fmt::appender(buf);
  // The mapping's name (util/mapped_path.h); the symbols name only a kernel module.
  std::string_view dso = f.map ? f.map->name : std::string_view("[unknown]");
  if (options_.symbols && symbols_) {
    analysis::SymbolName sym = symbols_->symbolize(f, pid);
    if (!sym.dso.empty() && (!f.map || f.map->kernel)) dso = sym.dso;
    if (options_.inline_frames) {
      // Innermost first, each at the frame's address, before the function
      // they were inlined into (the order a debugger shows).
      symbols_->inline_names(f, pid, inlines_);
      for (std::string_view name : inlines_) fmt::format_to(out, "\t{:>16x} {} ({})\n", f.addr, name, dso);
    }
    if (!sym.name.empty())
      fmt::format_to(out, "\t{:>16x} {}+{:#x} ({})", f.addr, sym.name, sym.offset, dso);
    else
      fmt::format_to(out, "\t{:>16x} [unknown] ({})", f.addr, dso);
  } else if (f.map) {
    // Raw mode: everything needed to symbolize later, elsewhere.
    RawLocation at = raw_location(*f.map, f.addr, f.file_offset);
    fmt::format_to(out, "\t{:>16x} {}+{:#x} {}\n", f.addr, at.dso, at.offset,
                   f.map->build_id.empty() ? "-" : f.map->build_id.hex());
    return;
  } else {
    fmt::format_to(out, "\t{:>16x} [unknown]\n", f.addr);
    return;
  }
  if (options_.build_ids && f.map) fmt::format_to(out, " {}", f.map->build_id.empty() ? "-" : f.map->build_id.hex());
  buf.push_back('\n');
}

void ScriptPrinter::append_trace(const Sample& s, std::string_view sep) {
  auto out = fmt::appender(buf_);
  if (s.event->attr.type == PERF_TYPE_TRACEPOINT && !s.raw.empty()) {
    if (!formats_loaded_) {
      formats_ = parse_tracing_data(walker_.session().tracing_data());
      formats_loaded_ = true;
    }
    auto it = formats_.find(s.event->attr.config);
    if (it != formats_.end()) fmt::format_to(out, "{}{}", sep, format_tracepoint_fields(it->second, s.raw));
  }
  if (extra_ && extra_(s, extra_text_)) fmt::format_to(out, "{}{}", sep, extra_text_);
}

bool ScriptPrinter::selected(const Sample& s) {
  const analysis::ProfileFilter& f = options_.filter;
  auto has = [](const auto& list, const auto& v) { return std::find(list.begin(), list.end(), v) != list.end(); };
  if (!f.time.contains(s.time) || !f.accepts_cpu(s)) return false;
  if (!f.pids.empty() && !has(f.pids, s.pid)) return false;
  if (!f.tids.empty() && !has(f.tids, s.tid)) return false;
  if (!f.comms.empty() && !has(f.comms, walker_.space().comm(s.pid, s.tid))) return false;
  if (options_.symbols_shown.empty()) return true;
  // perf's -S: the sampled address's symbol, by name or start address.
  analysis::sample_frames(s, walker_.space(), frames_, 1);
  if (frames_.empty() || !symbols_) return false;
  analysis::SymbolName sym = symbols_->symbolize(frames_.front(), s.pid);
  if (sym.name.empty()) return false;
  if (has(options_.symbols_shown, sym.name)) return true;
  return has(options_.symbols_shown, fmt::format("{:#x}", frames_.front().addr - sym.offset));
}

void ScriptPrinter::print(const Sample& s) {
  print_header_once();
  if (!selected(s)) return;
  if (options_.fields.enabled) return print_fields(s);
  std::string_view comm = walker_.space().comm(s.pid, s.tid);
  if (comm.empty()) comm = ":" ;
  const std::string& event = s.event->name;
  // The command starts the line unpadded, as perf script prints it with call
  // chains: stackcollapse-perf.pl's header regex wants no leading blank.
  append_sample_header(buf_, comm, s, event, options_.nanoseconds);
  append_trace(s, " ");
  buf_.push_back('\n');
  analysis::sample_frames(s, walker_.space(), frames_, options_.max_stack);
  for (const analysis::Frame& f : frames_) print_frame(f, s.pid);
  buf_.push_back('\n');
  if (buf_.size() > (1 << 16)) flush();
}

}  // namespace sonde::script
