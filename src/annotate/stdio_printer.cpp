#include "annotate/stdio_printer.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/error.h"

namespace sonde::annotate {

PercentType parse_percent_type(const std::string& word) {
  if (word == "local-period") return PercentType::kLocalPeriod;
  if (word == "global-period") return PercentType::kGlobalPeriod;
  if (word == "local-hits") return PercentType::kLocalHits;
  if (word == "global-hits") return PercentType::kGlobalHits;
  throw_usage("--percent-type: '{}' is not local-period, global-period, local-hits or global-hits", word);
}

namespace {

const char* percent_type_text(PercentType t) {
  switch (t) {
    case PercentType::kLocalHits: return "local hits";
    case PercentType::kGlobalHits: return "global hits";
    case PercentType::kLocalPeriod: return "local period";
    case PercentType::kGlobalPeriod: return "global period";
  }
  return "";
}

std::string file_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An inclusive share: of the symbol's own samples and those below it
// (local), or of the event's (global).
double inclusive_percent(const Hits& hits, const SymbolHist& sym, const EventHists& ev, PercentType type) {
  const bool local = type == PercentType::kLocalHits || type == PercentType::kLocalPeriod;
  const bool by_hits = type == PercentType::kLocalHits || type == PercentType::kGlobalHits;
  uint64_t base = local ? (by_hits ? sym.self_total.samples + sym.children_total.samples
                                   : sym.self_total.period + sym.children_total.period)
                        : (by_hits ? ev.nr_samples : ev.total_period);
  uint64_t part = by_hits ? hits.samples : hits.period;
  return base ? 100.0 * double(part) / double(base) : 0.0;
}

}  // namespace

double percent_of(const Hits& hits, const SymbolHist& sym, const EventHists& ev, PercentType type) {
  uint64_t base = 0, part = 0;
  switch (type) {
    case PercentType::kLocalHits: base = sym.self_total.samples, part = hits.samples; break;
    case PercentType::kGlobalHits: base = ev.nr_samples, part = hits.samples; break;
    case PercentType::kLocalPeriod: base = sym.self_total.period, part = hits.period; break;
    case PercentType::kGlobalPeriod: base = ev.total_period, part = hits.period; break;
  }
  return base ? 100.0 * double(part) / double(base) : 0.0;
}

std::vector<LineCost> line_summary(const AnnotatedSymbol& sym, const EventHists& ev, const PrintOptions& opts,
                                   bool perf_threshold) {
  std::vector<LineCost> lines;
  for (const auto& ai : sym.insns) {
    if (ai.place < 0) continue;
    double p = percent_of(ai.self, *sym.hist, ev, opts.percent_type);
    if (perf_threshold ? p <= 0.5 : ai.self.samples == 0) continue;  // perf: MIN_GREEN
    const SourcePlace& place = sym.places[size_t(ai.place)];
    std::string key = fmt::format("{}:{}", opts.full_paths ? place.file : file_name(place.file), place.line);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const LineCost& l) { return l.place == key; });
    if (it == lines.end()) it = lines.insert(lines.end(), LineCost{key, 0, {}});
    it->percent += p;
    it->self += ai.self;
  }
  std::stable_sort(lines.begin(), lines.end(), [](const LineCost& a, const LineCost& b) { return a.percent > b.percent; });
  return lines;
}

namespace {

void print_summary(const AnnotatedSymbol& sym, const EventHists& ev, const PrintOptions& opts, std::FILE* out) {
  fmt::print(out, "\nSorted summary for file {}\n----------------------------------------------\n\n", sym.object_name);
  auto lines = line_summary(sym, ev, opts, true);
  if (lines.empty()) fmt::print(out, " Nothing higher than {:1.1f}%\n", 0.5);
  for (const auto& l : lines) fmt::print(out, " {:7.2f} {}\n", l.percent, l.place);
}

// A line without an instruction: perf's " %*s: %-*d %s".
void print_text_line(std::FILE* out, int addr_width, const std::string& number, const std::string& text) {
  if (text.empty() && number.empty()) return (void)fmt::print(out, "         :\n");
  fmt::print(out, "         : {:<{}} {}\n", number, addr_width, text);
}

// objdump's "ADDR:\tINSN" after perf expands the tab (stops every 8
// columns from the address). --asm-raw: first the bytes, 7 a line in a
// 21-column field, as objdump; `from` is where this line's bytes start
// (a longer instruction continues on lines of its bytes only).
constexpr size_t kRawBytesPerLine = 7;
std::string instruction_column(const AnnotatedInsn& ai, int addr_width, bool asm_raw, size_t from = 0) {
  std::string s = fmt::format("{:x}:", ai.insn.addr + from);
  const size_t pad = s.size() < size_t(addr_width) + 1 ? size_t(addr_width) + 1 - s.size() : 0;
  auto tab = [&s] { s.append(8 - s.size() % 8, ' '); };
  tab();
  if (!asm_raw) return std::string(pad, ' ') + s + ai.text;
  std::string bytes;
  for (size_t i = from; i < ai.insn.bytes.size() && i < from + kRawBytesPerLine; ++i)
    bytes += fmt::format("{:02x} ", ai.insn.bytes[i]);
  if (from > 0) return std::string(pad, ' ') + s + bytes.substr(0, bytes.size() - 1);
  s += fmt::format("{:<21}", bytes);
  tab();
  return std::string(pad, ' ') + s + ai.text;
}

void print_place(const AnnotatedSymbol& sym, const SourcePlace& place, const SourcePlace* previous, int addr_width,
                 SourceFiles& sources, std::FILE* out) {
  if (!place.inlined.empty() && (!previous || previous->inlined != place.inlined)) {
    for (size_t i = 0; i < place.inlined.size(); ++i) {
      const InlineStep& step = place.inlined[i];
      const std::string& into = i + 1 < place.inlined.size() ? place.inlined[i + 1].function : sym.hist->name;
      print_text_line(out, addr_width, "",
                      fmt::format("{}() inlined into {} at {}:{}", step.function, into, file_name(step.call_file),
                                  step.call_line));
    }
  }
  const std::string* text = sources.line(place.file, place.line);
  print_text_line(out, addr_width, std::to_string(place.line),
                  text ? *text : fmt::format("{}:{}", file_name(place.file), place.line));
}

}  // namespace

void print_stdio(const AnnotatedSymbol& sym, const EventHists& ev, const PrintOptions& opts, SourceFiles& sources,
                 std::FILE* out) {
  const SymbolHist& h = *sym.hist;
  if (opts.print_lines) print_summary(sym, ev, opts, out);
  const std::string header =
      fmt::format(" {} |\tSource code & Disassembly of {} for {} ({} samples, percent: {})",
                  opts.show_samples ? "Samples" : "Percent",
                  opts.full_paths ? sym.object_name : file_name(sym.object_name), ev.event, h.self_total.samples,
                  percent_type_text(opts.percent_type));
  fmt::print(out, "{}\n{}\n", header, std::string(header.size() + 5, '-'));
  const int addr_width =
      sym.insns.empty() ? 0 : int(fmt::formatted_size("{:x}", sym.insns.back().insn.addr));
  print_text_line(out, addr_width, "", "");
  print_text_line(out, addr_width, "", fmt::format("{:016x} <{}>:", h.symbol_addr, h.name));
  int last_place = -1;
  for (const auto& ai : sym.insns) {
    if (opts.source && ai.place >= 0 && ai.place != last_place &&
        (last_place < 0 || !(sym.places[size_t(ai.place)] == sym.places[size_t(last_place)]))) {
      print_place(sym, sym.places[size_t(ai.place)], last_place >= 0 ? &sym.places[size_t(last_place)] : nullptr,
                  addr_width, sources, out);
    }
    if (ai.place >= 0) last_place = ai.place;
    std::string line = opts.show_samples
                           ? fmt::format(" {:7} :   {}", ai.self.samples, instruction_column(ai, addr_width, opts.asm_raw))
                           : fmt::format(" {:7.2f} :   {}", percent_of(ai.self, h, ev, opts.percent_type),
                                         instruction_column(ai, addr_width, opts.asm_raw));
    if (ai.children.samples && ai.insn.is_call)
      line += fmt::format("\t# inclusive {:.2f}%", inclusive_percent(ai.children, h, ev, opts.percent_type));
    fmt::print(out, "{}\n", line);
    // objdump's continuation lines of a long instruction's bytes: perf
    // lists them as instructions of their own (no sample starts there).
    for (size_t from = kRawBytesPerLine; opts.asm_raw && from < ai.insn.bytes.size(); from += kRawBytesPerLine)
      fmt::print(out, " {:>7} :   {}\n", opts.show_samples ? "0" : "0.00",
                 instruction_column(ai, addr_width, true, from));
  }
}

namespace {

struct CrossLine {
  std::string place;
  Hits self;
  std::vector<std::string> copies;  // "mix() in first_caller", or the symbol's own name
};

}  // namespace

void print_cross_summary(const std::vector<AnnotatedSymbol>& syms, const EventHists& ev, const PrintOptions& opts,
                         std::FILE* out) {
  std::vector<CrossLine> lines;
  Hits all;
  for (const auto& sym : syms) {
    all += sym.hist->self_total;
    for (const auto& ai : sym.insns) {
      if (ai.place < 0 || ai.self.samples == 0) continue;
      const SourcePlace& place = sym.places[size_t(ai.place)];
      std::string key = fmt::format("{}:{}", opts.full_paths ? place.file : file_name(place.file), place.line);
      auto it = std::find_if(lines.begin(), lines.end(), [&](const CrossLine& l) { return l.place == key; });
      if (it == lines.end()) it = lines.insert(lines.end(), CrossLine{key, {}, {}});
      it->self += ai.self;
      std::string copy = place.inlined.empty() ? sym.hist->name
                                               : fmt::format("{}() in {}", place.inlined.front().function, sym.hist->name);
      if (std::find(it->copies.begin(), it->copies.end(), copy) == it->copies.end()) it->copies.push_back(copy);
    }
  }
  const bool by_hits = opts.percent_type == PercentType::kLocalHits || opts.percent_type == PercentType::kGlobalHits;
  const bool local = opts.percent_type == PercentType::kLocalHits || opts.percent_type == PercentType::kLocalPeriod;
  const uint64_t base = local ? (by_hits ? all.samples : all.period) : (by_hits ? ev.nr_samples : ev.total_period);
  auto value = [&](const Hits& h) { return by_hits ? h.samples : h.period; };
  std::stable_sort(lines.begin(), lines.end(), [&](const CrossLine& a, const CrossLine& b) { return value(a.self) > value(b.self); });
  fmt::print(out, "\nSorted summary of the source lines of {} symbols for {} (inlined copies added up)\n"
                  "----------------------------------------------\n\n Percent  Samples  Line\n",
             syms.size(), ev.event);
  for (const auto& l : lines) {
    std::string copies;
    for (const auto& c : l.copies) { copies += copies.empty() ? "" : ", "; copies += c; }
    fmt::print(out, " {:7.2f} {:8}  {}  {}\n", base ? 100.0 * double(value(l.self)) / double(base) : 0.0, l.self.samples,
               l.place, copies);
  }
}

}  // namespace sonde::annotate
