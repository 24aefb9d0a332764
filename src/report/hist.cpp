#include "report/hist.h"

#include "util/mapped_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "util/error.h"
#include "util/flat_index.h"

namespace sonde::report {

using analysis::Profile;
using analysis::ProfileLocation;
using analysis::ProfileSample;

namespace {

struct HistKeyHash {
  size_t operator()(const HistKey& k) const {
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t v : {uint64_t(k.comm), uint64_t(k.thread), uint64_t(k.dso), uint64_t(k.sym), uint64_t(k.srcline),
                       uint64_t(k.parent), uint64_t(uint32_t(k.cpu)), uint64_t(uint32_t(k.socket)),
                       uint64_t(uint32_t(k.core))})
      h = (h ^ v) * 1099511628211ULL;
    return static_cast<size_t>(mix64(h));
  }
};

std::string_view basename(std::string_view path) {
  if (is_pseudo_path(path)) return path.substr(0, path.find(']') + 1);
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool kernel_image(const analysis::ProfileMapping& m, std::string_view path) {
  return m.kernel && classify_mapped_path(path) == MappedPath::kKernel;
}

// What sample frames and row keys need of the Profile, computed once.
class Builder {
 public:
  Builder(const Profile& p, const HistOptions& o) : p_(p), o_(o) {
    for (Field f : o.layout.sort) {
      use_comm_ |= f == Field::kComm, use_thread_ |= f == Field::kPid || f == Field::kTid;
      use_dso_ |= f == Field::kDso, use_sym_ |= f == Field::kSym, use_srcline_ |= f == Field::kSrcline;
      use_parent_ |= f == Field::kParent, use_cpu_ |= f == Field::kCpu;
      use_socket_ |= f == Field::kSocket, use_core_ |= f == Field::kCore;
    }
    rank_objects();
    if (o.key == GraphKey::kSrcline) rank_srclines();
  }

  std::vector<EventHists> build();

 private:
  struct SampleFacts {
    const ProfileSample* s;
    int32_t cpu, socket, core;
    uint32_t parent;  // function, or UINT32_MAX
  };

  void rank_objects();
  void rank_srclines();
  uint32_t dso_id(uint32_t location) const;
  uint32_t srcline_id(uint32_t location);
  uint32_t make_srcline_id(uint32_t location);
  void sample_chain(const ProfileSample& s, std::vector<ChainElem>& chain) const;
  HistKey key(const SampleFacts& f, const ChainElem& e);
  HistEntry& entry(EventHists& ev, const SampleFacts& f, const ChainElem& e, bool filtered, bool kernel);
  bool thread_filtered(const ProfileSample& s) const;
  bool location_filtered(const ChainElem& self) const;
  uint32_t find_parent(const std::vector<ChainElem>& cursor) const;
  bool matches(const std::regex& re, uint32_t function, std::vector<int8_t>& cache) const;

  const Profile& p_;
  const HistOptions& o_;
  bool use_comm_ = false, use_thread_ = false, use_dso_ = false, use_sym_ = false, use_srcline_ = false;
  bool use_parent_ = false, use_cpu_ = false, use_socket_ = false, use_core_ = false;
  std::vector<uint32_t> object_rank_;  // by mapping
  std::vector<uint32_t> srcline_rank_;  // -g srcline: by location, the rank of its line's text (0: none)
  std::unordered_map<std::string, uint32_t> srclines_;
  std::vector<uint32_t> location_srcline_;     // by location: its srcline id, 0 until asked
  mutable std::vector<int8_t> location_shown_;  // by location: --dsos and --symbols keep it (1), hide it (0), unknown (-1)
  mutable std::vector<int8_t> parent_match_;   // by function: matches --parent
  mutable std::vector<int8_t> callee_match_;   // by function: matches --ignore-callees
  std::vector<std::string> srcline_text_;
  FlatIndex<HistKey, HistKeyHash> index_;
};

// perf compares a chain's frames by their objects' addresses, which follow
// the order it creates the objects in: the kernel at start, then each file
// at its first mapping.
void Builder::rank_objects() {
  std::unordered_map<analysis::StringId, uint32_t> first;
  for (const auto& m : p_.mappings) {
    std::string_view path = p_.str(m.path);
    uint32_t rank = kernel_image(m, path) ? 0 : m.seen + 1;
    auto [it, fresh] = first.emplace(m.path, rank);
    if (!fresh) it->second = std::min(it->second, rank);
  }
  for (const auto& m : p_.mappings) object_rank_.push_back(first[m.path] + 1);
}

// perf compares frames by their source lines' text there (by function
// where a frame has none).
void Builder::rank_srclines() {
  std::vector<std::string> text(p_.locations.size());
  for (uint32_t l = 0; l < text.size(); ++l) text[l] = frame_srcline(p_, l, GraphKey::kSrcline);
  std::vector<std::string> sorted = text;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  srcline_rank_.resize(text.size());
  for (uint32_t l = 0; l < text.size(); ++l)
    srcline_rank_[l] = text[l].empty() ? 0 : 1 + uint32_t(std::lower_bound(sorted.begin(), sorted.end(), text[l]) - sorted.begin());
}

uint32_t Builder::dso_id(uint32_t location) const {
  const ProfileLocation& loc = p_.locations[location];
  if (loc.mapping == UINT32_MAX) return loc.kernel ? 1 : 2;
  const auto& m = p_.mappings[loc.mapping];
  return kernel_image(m, p_.str(m.path)) ? 1 : m.path + 3;
}

// Once per location: a sample's frames ask again and again.
uint32_t Builder::srcline_id(uint32_t location) {
  if (location_srcline_.empty()) location_srcline_.assign(p_.locations.size(), 0);
  uint32_t& id = location_srcline_[location];
  if (!id) id = make_srcline_id(location);
  return id;
}

uint32_t Builder::make_srcline_id(uint32_t location) {
  const ProfileLocation& loc = p_.locations[location];
  // Without a line perf prints the symbol and the offset in it (decimal),
  // or the object and the address.
  std::string text = "??:0";
  if (!loc.lines.empty() && !p_.str(p_.functions[loc.lines.back().function].file).empty()) {
    const auto& l = loc.lines.back();  // the outer function's line
    text = fmt::format("{}:{}", basename(p_.str(p_.functions[l.function].file)), l.line);
  } else if (p_.functions[loc.function].resolved) {
    text = fmt::format("{}+{}", p_.str(p_.functions[loc.function].name), loc.symbol_offset);
  } else if (loc.mapping != UINT32_MAX) {
    text = fmt::format("{}[{:x}]", object_name(p_, location, false), loc.kernel ? loc.address : loc.file_offset);
  }
  auto [it, fresh] = srclines_.emplace(text, static_cast<uint32_t>(srcline_text_.size()) + 1);
  if (fresh) srcline_text_.push_back(text);
  return it->second;
}

// The sample's frames, leaf first; a location with inlined functions
// (--inline) gives one frame per function, innermost first.
void Builder::sample_chain(const ProfileSample& s, std::vector<ChainElem>& chain) const {
  chain.clear();
  for (uint32_t n = s.stack; n != UINT32_MAX; n = p_.nodes[n].parent) {
    const uint32_t l = p_.nodes[n].location;
    const ProfileLocation& loc = p_.locations[l];
    ChainElem e;
    e.location = l;
    e.object = loc.mapping == UINT32_MAX ? 0 : object_rank_[loc.mapping];
    const bool resolved = p_.functions[loc.function].resolved;
    const uint64_t where = loc.mapping != UINT32_MAX && !loc.kernel ? loc.file_offset : loc.address;
    e.position = o_.key == GraphKey::kFunction && resolved ? where - loc.symbol_offset : loc.address;
    if (o_.key == GraphKey::kSrcline) {
      if (srcline_rank_[l]) e.object = 0, e.position = srcline_rank_[l];
      else e.position = resolved ? where - loc.symbol_offset : loc.address;
    }
    if (loc.lines.size() >= 2) {
      for (const auto& line : loc.lines) {
        e.function = line.function;
        if (line.function != loc.function) e.position = (uint64_t(1) << 63) | line.function;  // inlined: by name
        else e.position = o_.key == GraphKey::kFunction && resolved ? where - loc.symbol_offset : loc.address;
        chain.push_back(e);
      }
    } else {
      e.function = loc.function;
      chain.push_back(e);
    }
  }
}

HistKey Builder::key(const SampleFacts& f, const ChainElem& e) {
  HistKey k;
  if (use_comm_) k.comm = f.s->comm + 1;
  if (use_thread_) k.thread = f.s->tid + 1;
  if (use_dso_) k.dso = dso_id(e.location);
  if (use_sym_) k.sym = e.function + 1;
  if (use_srcline_) k.srcline = srcline_id(e.location);
  if (use_parent_) k.parent = f.parent == UINT32_MAX ? UINT32_MAX : f.parent + 1;
  if (use_cpu_) k.cpu = f.cpu;
  if (use_socket_) k.socket = f.socket;
  if (use_core_) k.core = f.core;
  return k;
}

HistEntry& Builder::entry(EventHists& ev, const SampleFacts& f, const ChainElem& e, bool filtered, bool kernel) {
  HistKey k = key(f, e);
  auto [id, fresh] = index_.find_or_insert(k, static_cast<uint32_t>(ev.entries.size()));
  if (!fresh) return ev.entries[id];
  HistEntry& h = ev.entries.emplace_back();
  h.key = k;
  h.function = e.function;
  h.location = e.location;
  h.comm = f.s->comm;
  h.pid = f.s->pid, h.tid = f.s->tid;
  h.cpu = f.cpu, h.socket = f.socket, h.core = f.core;
  h.kernel = kernel;
  h.parent = f.parent;
  if (use_srcline_) h.srcline = srcline_text_[k.srcline - 1];
  h.filtered = filtered;  // as perf: the sample that made the row decides
  if (o_.call_graph) h.chains = std::make_unique<CallTree>();
  return h;
}

bool Builder::thread_filtered(const ProfileSample& s) const {
  auto has = [](const auto& list, const auto& v) { return std::find(list.begin(), list.end(), v) != list.end(); };
  if (!o_.pids.empty() && !has(o_.pids, s.pid)) return true;
  if (!o_.tids.empty() && !has(o_.tids, s.tid)) return true;
  return !o_.comms.empty() && !has(o_.comms, p_.str(s.comm));
}

// perf's --dsos (short or long name) and --symbols (the name; an unnamed
// frame is hidden).
bool Builder::location_filtered(const ChainElem& self) const {
  if (o_.dsos.empty() && !o_.symbols) return false;
  if (location_shown_.empty()) location_shown_.assign(p_.locations.size(), -1);
  int8_t& shown = location_shown_[self.location];
  if (shown >= 0) return !shown;
  auto has = [](const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  shown = 1;
  if (!o_.dsos.empty())
    shown = has(o_.dsos, object_name(p_, self.location, false)) || has(o_.dsos, object_name(p_, self.location, true));
  if (shown && o_.symbols) {
    const auto& fn = p_.functions[self.function];
    shown = fn.resolved && has(*o_.symbols, std::string(p_.str(fn.name)));
  }
  return !shown;
}

// Once per function and pattern (the answers are cached in `cache`).
bool Builder::matches(const std::regex& re, uint32_t function, std::vector<int8_t>& cache) const {
  if (cache.empty()) cache.assign(p_.functions.size(), -1);
  int8_t& m = cache[function];
  if (m < 0) m = p_.functions[function].resolved && std::regex_search(std::string(p_.str(p_.functions[function].name)), re);
  return m;
}

// perf's parent: the first frame, in the chain's order, whose symbol
// matches the --parent pattern.
uint32_t Builder::find_parent(const std::vector<ChainElem>& cursor) const {
  for (const ChainElem& e : cursor)
    if (matches(*o_.parent, e.function, parent_match_)) return e.function;
  return UINT32_MAX;
}

std::vector<EventHists> Builder::build() {
  std::vector<EventHists> out;
  std::vector<ChainElem> frames, cursor;
  std::vector<HistKey> seen;
  for (uint32_t ev = 0; ev < p_.events.size(); ++ev) {
    EventHists& hists = out.emplace_back();
    // Rows are about one per function with one event: no regrowth of the rows.
    if (p_.events.size() == 1) hists.entries.reserve(p_.functions.size());
    hists.event = ev;
    index_.clear();
    const bool has_cpu = p_.events[ev].sample_type & (1u << 7);  // PERF_SAMPLE_CPU
    for (const ProfileSample& s : p_.samples) {
      if (s.event != ev) continue;
      hists.samples += s.count;
      hists.period += s.period;
      sample_chain(s, frames);
      if (frames.empty()) continue;
      cursor = frames;
      if (o_.order == GraphOrder::kCaller) std::reverse(cursor.begin(), cursor.end());
      SampleFacts f{&s, -1, -1, -1, UINT32_MAX};
      if (has_cpu) {
        f.cpu = static_cast<int32_t>(s.cpu);
        if (s.cpu < p_.cpus.size()) f.socket = p_.cpus[s.cpu].socket, f.core = p_.cpus[s.cpu].core;
      }
      if (use_parent_) f.parent = find_parent(cursor);
      // --ignore-callees: the chain starts again at the last match, which
      // takes the sample (perf's add_callchain_ip resets its cursor there).
      ChainElem self = frames.front();
      if (o_.ignore_callees)
        for (size_t i = cursor.size(); i-- > 0;)
          if (matches(*o_.ignore_callees, cursor[i].function, callee_match_)) {
            cursor.erase(cursor.begin(), cursor.begin() + static_cast<long>(i));
            self = cursor.front();
            break;
          }
      const bool filtered = thread_filtered(s) || location_filtered(self);
      const bool sample_kernel = p_.locations[self.location].kernel;
      HistEntry& own = entry(hists, f, self, filtered, sample_kernel);
      own.self_period += s.period, own.self_samples += s.count;
      own.acc_period += s.period, own.acc_samples += s.count;
      (p_.locations[self.location].kernel ? own.sys_period : own.us_period) += s.period;
      if (own.chains) own.chains->add(cursor, s.period, s.count);
      if (!o_.children) continue;
      seen.assign(1, own.key);
      bool level = sample_kernel;
      for (size_t i = 0; i < cursor.size(); ++i) {
        // perf reuses one location for the walk: a frame without object
        // keeps the level of the frame before it.
        const auto& loc = p_.locations[cursor[i].location];
        if (loc.mapping != UINT32_MAX) level = loc.kernel;
        HistKey k = key(f, cursor[i]);
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;  // recursion counts once
        seen.push_back(k);
        HistEntry& caller = entry(hists, f, cursor[i], filtered, level);
        caller.acc_period += s.period, caller.acc_samples += s.count;
        if (caller.chains) caller.chains->add(std::span(cursor).subspan(i), s.period, s.count);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> perf_symbol_names(const std::vector<std::string>& given) {
  std::vector<std::string> names = given;
  std::sort(names.begin(), names.end());
  // perf stops at a name given twice ("problems parsing symbol list").
  if (auto twice = std::adjacent_find(names.begin(), names.end()); twice != names.end())
    throw_usage("--symbols: '{}' is given twice", *twice);
  std::erase_if(names, [](const std::string& g) {
    // strtoul(s, &end, 16) taking all of it but trailing blanks.
    size_t digits = g.starts_with("0x") || g.starts_with("0X") ? 2 : 0;
    const size_t start = digits;
    while (digits < g.size() && std::isxdigit(static_cast<unsigned char>(g[digits]))) ++digits;
    return digits > start && g.find_first_not_of(" \t\n", digits) == std::string::npos;
  });
  return names;
}

std::string frame_srcline(const Profile& p, uint32_t location, GraphKey key) {
  const ProfileLocation& loc = p.locations[location];
  if (loc.kernel) return key == GraphKey::kAddress ? fmt::format("+{}", loc.symbol_offset) : "";
  if (!loc.lines.empty()) {
    const auto& l = loc.lines.back();
    std::string_view file = p.str(p.functions[l.function].file);
    if (!file.empty()) return fmt::format("{}:{}", basename(file), l.line);
  }
  return "??:0";
}

std::string object_name(const Profile& p, uint32_t location, bool long_name) {
  if (location == UINT32_MAX) return "[unknown]";
  const ProfileLocation& loc = p.locations[location];
  if (loc.mapping == UINT32_MAX) return loc.kernel ? "[kernel.kallsyms]" : "[unknown]";
  // The profile holds perf's long name (util/mapped_path.h decides it).
  std::string_view path = p.str(p.mappings[loc.mapping].path);
  if (long_name && !is_pseudo_path(path)) return std::string(path);
  return mapping_short_name(path);
}

ObjectNames::ObjectNames(const Profile& p, bool long_name) : p_(p) {
  by_mapping_.reserve(p.mappings.size());
  for (const auto& m : p.mappings) {
    std::string_view path = p.str(m.path);
    by_mapping_.push_back(long_name && !is_pseudo_path(path) ? std::string(path) : mapping_short_name(path));
  }
}

std::string_view ObjectNames::operator()(uint32_t location) const {
  if (location == UINT32_MAX) return "[unknown]";
  const ProfileLocation& loc = p_.locations[location];
  if (loc.mapping == UINT32_MAX) return loc.kernel ? "[kernel.kallsyms]" : "[unknown]";
  return by_mapping_[loc.mapping];
}

std::vector<EventHists> build_hists(const Profile& p, const HistOptions& options) {
  return Builder(p, options).build();
}

}  // namespace sonde::report
