#include "annotate/page_annotations.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "annotate/annotated_symbol.h"
#include "annotate/source_files.h"
#include "convert/frames.h"
#include "convert/page_data.h"
#include "util/error.h"

namespace sonde::annotate {

namespace {

std::string json_str(std::string_view s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string file_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct PageFunction {
  uint32_t frame = 0;
  uint32_t location = 0;  // its hottest leaf location, where the symbol is looked up
  uint64_t samples = 0;
  SymbolHist hist;
  AnnotatedSymbol code;
  uint32_t first = 0;  // its first instruction's index among all functions'
  std::vector<uint64_t> offsets;  // each instruction's offset into the symbol
};

// The functions worth embedding: the hottest by self samples, then (so
// callers' call instructions show what runs below them) by total samples,
// half of `max` each when both have that many; user code with a symbol.
std::vector<PageFunction> hottest_functions(const analysis::Profile& p, const convert::FrameTable& table, size_t max) {
  struct Counts {
    uint64_t self = 0, total = 0;
    uint32_t location = UINT32_MAX;
  };
  std::unordered_map<uint32_t, Counts> by_frame;
  std::vector<uint32_t> frames, seen;
  for (const auto& s : p.samples) {
    seen.clear();
    for (uint32_t n = s.stack, depth = 0; n != UINT32_MAX; n = p.nodes[n].parent, ++depth) {
      uint32_t loc = p.nodes[n].location;
      const auto& l = p.locations[loc];
      if (l.kernel || l.mapping == UINT32_MAX || !p.functions[l.function].resolved) continue;
      frames.clear();
      table.location_frames(loc, frames);
      Counts& c = by_frame[frames.front()];
      if (depth == 0) c.self += s.count, c.location = loc;
      if (std::find(seen.begin(), seen.end(), frames.front()) == seen.end()) {
        seen.push_back(frames.front());
        c.total += s.count;
        if (c.location == UINT32_MAX) c.location = loc;
      }
    }
  }
  std::vector<std::pair<uint32_t, Counts>> all(by_frame.begin(), by_frame.end());
  auto pick = [&](auto better, size_t n, std::vector<PageFunction>& out) {
    std::sort(all.begin(), all.end(), better);
    for (const auto& [frame, c] : all) {
      if (out.size() >= n) break;
      bool have = std::any_of(out.begin(), out.end(), [&, fr = frame](const PageFunction& f) { return f.frame == fr; });
      if (!have && (c.self || c.total)) out.push_back(PageFunction{frame, c.location, c.self, {}, {}, 0, {}});
    }
  };
  std::vector<PageFunction> out;
  pick([](const auto& a, const auto& b) { return a.second.self != b.second.self ? a.second.self > b.second.self : a.first < b.first; },
       max - max / 2, out);
  pick([](const auto& a, const auto& b) { return a.second.total != b.second.total ? a.second.total > b.second.total : a.first < b.first; },
       max, out);
  return out;
}

// The symbol of the function's hottest location, its code and lines.
bool annotate_function(const analysis::Profile& p, PageFunction& f, Symbolizer& sym, Annotator& annotator,
                       std::vector<std::string>& notes) {
  const auto& l = p.locations[f.location];
  const auto& m = p.mappings[l.mapping];
  uint32_t pid = 0;
  for (const auto& s : p.samples)
    if (s.stack != UINT32_MAX && p.nodes[s.stack].location == f.location) pid = s.pid;
  BuildId id = BuildId::from_hex(p.str(m.build_id)).value_or(BuildId{});
  ObjectHandle h = sym.object(id, p.str(m.path), pid_t(pid));
  ResolvedSymbol r = sym.lookup(h, l.file_offset);
  if (!r.resolved()) return false;
  f.hist.name = std::string(r.name);
  f.hist.dso = std::string(p.str(m.path));
  f.hist.build_id = id;
  f.hist.pid = pid;
  f.hist.object = h;
  f.hist.symbol_addr = r.symbol_addr;
  f.hist.symbol_size = r.symbol_size;
  f.hist.file_offset = l.file_offset - r.offset;
  try {
    f.code = annotator.annotate(f.hist, true);
  } catch (const Error& e) {
    notes.push_back(fmt::format("annotate view: {}", e.what()));
    return false;
  }
  for (const auto& ai : f.code.insns) f.offsets.push_back(ai.insn.addr - f.hist.symbol_addr);
  return true;
}

// The instruction holding `offset` of function `f`, as a global index.
int64_t instruction_at(const PageFunction& f, uint64_t offset) {
  auto it = std::upper_bound(f.offsets.begin(), f.offsets.end(), offset);
  if (it == f.offsets.begin()) return -1;
  size_t k = size_t(it - f.offsets.begin()) - 1;
  if (offset >= f.offsets[k] + f.code.insns[k].insn.size) return -1;
  return int64_t(f.first + k);
}

struct Columns {
  std::vector<uint16_t> bin, event;
  std::vector<uint32_t> thread, insn, self, incl;
  std::vector<double> self_period, incl_period;
  bool truncated = false;
};

struct RowKey {
  uint32_t thread, insn;
  uint16_t event;
  bool operator==(const RowKey&) const = default;
};
struct RowKeyHash {
  size_t operator()(const RowKey& k) const {
    return std::hash<uint64_t>()((uint64_t(k.thread) << 32 | k.insn) * 0x9E3779B97F4A7C15ULL ^ k.event);
  }
};

class RowBuilder {
 public:
  RowBuilder(const analysis::Profile& p, const convert::FrameTable& table, std::vector<PageFunction>& fns,
             size_t max_rows)
      : p_(p), table_(table), max_rows_(max_rows) {
    for (size_t i = 0; i < fns.size(); ++i) fn_of_frame_[fns[i].frame] = &fns[i];
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> index;
    for (const auto& s : p.samples) index.emplace(std::pair{s.pid, s.tid}, 0);
    uint32_t k = 0;
    for (auto& [key, v] : index) v = k++;
    for (const auto& s : p.samples) thread_of_.push_back(index[{s.pid, s.tid}]);
  }

  void add(const analysis::TimelineRow& r) {
    if (r.bin != bin_) in_bin_.clear(), bin_ = r.bin;
    const auto& s = p_.samples[r.aggregate];
    const bool by_count = p_.events[s.event].period == p_.events[s.event].samples;
    const double period = by_count && r.period == 0 ? double(r.count) : double(r.period);
    seen_.clear();
    bool previous_kernel = false;
    for (uint32_t n = s.stack, depth = 0; n != UINT32_MAX; n = p_.nodes[n].parent, ++depth) {
      const auto& l = p_.locations[p_.nodes[n].location];
      const bool interrupted = previous_kernel && !l.kernel;  // where user code was, not a return address
      previous_kernel = l.kernel;
      if (l.kernel || l.mapping == UINT32_MAX || (depth > 0 && interrupted)) continue;
      frames_.clear();
      table_.location_frames(p_.nodes[n].location, frames_);
      auto it = fn_of_frame_.find(frames_.front());
      if (it == fn_of_frame_.end() || it->second->offsets.empty()) continue;
      const PageFunction& f = *it->second;
      if (l.file_offset - l.symbol_offset != f.hist.file_offset) continue;  // another symbol of the same name
      const bool leaf = depth == 0;
      int64_t insn = instruction_at(f, leaf ? l.symbol_offset : l.symbol_offset - 1);
      if (insn < 0 || (!leaf && std::find(seen_.begin(), seen_.end(), insn) != seen_.end())) continue;
      if (!leaf) seen_.push_back(insn);
      add_cost(r, uint32_t(insn), s.event, period, leaf);
    }
  }

  Columns take() { return std::move(c_); }

 private:
  void add_cost(const analysis::TimelineRow& r, uint32_t insn, uint32_t event, double period, bool self) {
    RowKey key{thread_of_[r.aggregate], insn, uint16_t(event)};
    auto [it, fresh] = in_bin_.try_emplace(key, uint32_t(c_.bin.size()));
    if (fresh) {
      if (c_.bin.size() >= max_rows_) {
        in_bin_.erase(key);
        c_.truncated = true;
        return;
      }
      c_.bin.push_back(uint16_t(r.bin)), c_.event.push_back(uint16_t(event));
      c_.thread.push_back(key.thread), c_.insn.push_back(insn);
      c_.self.push_back(0), c_.incl.push_back(0), c_.self_period.push_back(0), c_.incl_period.push_back(0);
    }
    const uint32_t i = it->second;
    if (self) c_.self[i] += uint32_t(r.count), c_.self_period[i] += period;
    else c_.incl[i] += uint32_t(r.count), c_.incl_period[i] += period;
  }

  const analysis::Profile& p_;
  const convert::FrameTable& table_;
  size_t max_rows_;
  std::unordered_map<uint32_t, const PageFunction*> fn_of_frame_;
  std::vector<uint32_t> thread_of_;
  std::unordered_map<RowKey, uint32_t, RowKeyHash> in_bin_;
  uint32_t bin_ = UINT32_MAX;
  std::vector<int64_t> seen_;
  std::vector<uint32_t> frames_;
  Columns c_;
};

template <typename T>
void append_column(std::string& out, std::string_view name, const std::vector<T>& v) {
  out += fmt::format(",\"{}\":\"{}\"", name, convert::base64(v.data(), v.size() * sizeof(T)));
}

std::string place_json(const AnnotatedSymbol& code, const SourcePlace& pl, SourceFiles& sources) {
  std::string inlined;
  for (size_t i = 0; i < pl.inlined.size(); ++i) {
    const auto& step = pl.inlined[i];
    const std::string& into = i + 1 < pl.inlined.size() ? pl.inlined[i + 1].function : code.hist->name;
    inlined += fmt::format("{}{}() inlined into {} at {}:{}", i ? "; " : "", step.function, into,
                           file_name(step.call_file), step.call_line);
  }
  const std::string* text = sources.line(pl.file, pl.line);
  return fmt::format("[{},{},{},{}]", json_str(file_name(pl.file)), pl.line, json_str(text ? *text : ""),
                     json_str(inlined));
}

std::string function_json(const PageFunction& f, SourceFiles& sources) {
  std::string insns, places;
  for (size_t k = 0; k < f.code.insns.size(); ++k) {
    const auto& ai = f.code.insns[k];
    insns += fmt::format("{}[\"{:x}\",{},{},{}]", k ? "," : "", ai.insn.addr, json_str(ai.text), ai.place,
                         ai.insn.is_call ? 1 : 0);
  }
  for (size_t k = 0; k < f.code.places.size(); ++k) {
    places += k ? "," : "";
    places += place_json(f.code, f.code.places[k], sources);
  }
  return fmt::format("{{\"frame\":{},\"name\":{},\"dso\":{},\"first\":{},\"insns\":[{}],\"places\":[{}]}}", f.frame,
                     json_str(f.hist.name), json_str(f.hist.dso), f.first, insns, places);
}

}  // namespace

std::string page_annotations_json(const analysis::Profile& p, const analysis::Timeline* timeline,
                                  Symbolizer& symbolizer, const PageAnnotateOptions& opts,
                                  std::vector<std::string>& notes) {
  convert::FrameTable table(p);
  std::vector<PageFunction> candidates = hottest_functions(p, table, opts.max_functions);
  Annotator annotator(symbolizer, Syntax::kAtt);
  std::vector<PageFunction> fns;
  uint32_t next = 0;
  for (auto& f : candidates) {
    if (!annotate_function(p, f, symbolizer, annotator, notes)) continue;
    f.first = next;
    next += uint32_t(f.code.insns.size());
    fns.push_back(std::move(f));
  }
  if (fns.empty()) return "";
  for (auto& f : fns) f.code.hist = &f.hist;  // the vector moved them
  RowBuilder rows(p, table, fns, opts.max_rows);
  if (timeline) {
    for (const auto& r : timeline->rows) rows.add(r);
  } else {
    for (uint32_t i = 0; i < p.samples.size(); ++i) rows.add({i, 0, p.samples[i].count, p.samples[i].period});
  }
  Columns c = rows.take();
  if (c.truncated) notes.push_back(fmt::format("annotate view: kept the first {} rows of costs", opts.max_rows));
  SourceFiles sources;
  std::string out = fmt::format("{{\"limit\":{},\"truncated\":{},\"functions\":[", opts.max_functions,
                                c.truncated ? "true" : "false");
  for (size_t i = 0; i < fns.size(); ++i) {
    out += i ? "," : "";
    out += function_json(fns[i], sources);
  }
  out += fmt::format("],\"rows\":{}", c.bin.size());
  append_column(out, "bin", c.bin);
  append_column(out, "thread", c.thread);
  append_column(out, "event", c.event);
  append_column(out, "insn", c.insn);
  append_column(out, "self", c.self);
  append_column(out, "selfPeriod", c.self_period);
  append_column(out, "incl", c.incl);
  append_column(out, "inclPeriod", c.incl_period);
  return out + "}";
}

}  // namespace sonde::annotate
