#include "analysis/profile_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "format/features.h"
#include "util/byte_reader.h"
#include "analysis/frames.h"
#include "analysis/header_facts.h"
#include "analysis/recording_walker.h"
#include "analysis/resolver_thread.h"
#include "analysis/symbol_resolver.h"
#include "util/error.h"
#include "util/flat_index.h"
#include "util/mapped_path.h"

namespace sonde::analysis {

namespace {

// perf's "%#018lx" of an address without a symbol ("0x" and 16 lowercase
// hex digits), without a format string parsed per unresolved location.
struct AddressName {
  char text[18];
  explicit AddressName(uint64_t a) {
    text[0] = '0', text[1] = 'x';
    for (int i = 17; i >= 2; --i, a >>= 4) text[i] = "0123456789abcdef"[a & 15];
  }
  std::string_view view() const { return {text, sizeof text}; }
};

}  // namespace

using namespace sonde::format;

bool ProfileFilter::accepts_event(std::string_view name) const {
  if (events.empty()) return true;
  return std::find(events.begin(), events.end(), name) != events.end();
}

bool ProfileFilter::accepts_cpu(const Sample& s) const {
  if (cpus.empty()) return true;
  if (!(s.event->attr.sample_type & PERF_SAMPLE_CPU))
    throw_runtime("File does not contain CPU events. Remove -C option to proceed.");
  return std::binary_search(cpus.begin(), cpus.end(), static_cast<int>(s.cpu));
}

namespace {

// Each of NRCPUS' available CPUs' (core, socket), from HEADER_CPU_TOPOLOGY.
std::vector<CpuPlace> cpu_places(const Session& session) {
  auto topo = session.feature(kFeatCpuTopology);
  auto cpus = decode_nr_cpus_available(session.feature(kFeatNrCpus));
  if (topo.empty() || !cpus) return {};
  auto entries = decode_cpu_topology(topo, *cpus);
  if (!entries) return {};
  std::vector<CpuPlace> out;
  for (const auto& e : *entries) out.push_back({e.core, e.socket});
  return out;
}


// An event whose samples all carry period 0 (bpf-output: SDT probe hits in
// recordings older than the recorder's fix, or perf's own) counts its
// samples instead: else every row would be 0%.
void count_samples_as_period(Profile& p) {
  for (size_t ev = 0; ev < p.events.size(); ++ev) {
    auto& pe = p.events[ev];
    if (pe.period != 0 || pe.samples == 0) continue;
    pe.period = pe.samples;
    for (auto& ps : p.samples)
      if (ps.event == ev) ps.period = ps.count;
  }
}

}  // namespace

class ProfileBuilder::Impl {
 public:
  Impl(Symbolizer& sym, const ProfileOptions& opts) : resolver_(sym), resolving_(resolver_), opts_(opts) {}

  void on_sample(const Sample& s, const AddressSpace& space) {
    const auto& f = opts_.filter;
    if (!event_ok(*s.event)) return;
    if (!f.pids.empty() && std::find(f.pids.begin(), f.pids.end(), s.pid) == f.pids.end()) return;
    if (!f.tids.empty() && std::find(f.tids.begin(), f.tids.end(), s.tid) == f.tids.end()) return;
    if (!f.time.contains(s.time) || !f.accepts_cpu(s)) return;
    std::string_view comm = space.comm(s.pid, s.tid);
    if (!f.comms.empty() && std::find(f.comms.begin(), f.comms.end(), comm) == f.comms.end()) return;

    uint32_t node = UINT32_MAX;
    if (opts_.callchains && opts_.max_stack == 0 && s.callchain_size() > 0) {
      node = stack_node(s, space);
    } else {
      if (opts_.callchains) {
        sample_frames(s, space, frames_, opts_.max_stack);
      } else {
        Sample leaf = s;
        leaf.callchain = {};
        sample_frames(leaf, space, frames_, 1);
      }
      // Root to leaf through the prefix tree.
      for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) node = child(node, location(*it, s.pid));
    }

    uint32_t ev = event_index(*s.event);
    auto& pe = profile_.events[ev];
    pe.samples += 1;
    pe.period += s.period;
    // A thread no COMM named is named as perf names it: the idle thread
    // "swapper", any other ":TID".
    StringId comm_id = comm.empty() || s.tid == UINT32_MAX ? unnamed_comm(s.tid) : comm_id_for(comm);
    SampleKey key{ev, s.pid, s.tid, opts_.split_by_cpu ? s.cpu : 0, comm_id, node};
    uint32_t index = sample_at_node(key);
    if (index == UINT32_MAX) {
      auto [found, fresh] = sample_index_.find_or_insert(key, static_cast<uint32_t>(profile_.samples.size()));
      if (fresh) {
        ProfileSample ps;
        ps.event = ev, ps.pid = s.pid, ps.tid = s.tid, ps.cpu = s.cpu, ps.comm = comm_id, ps.stack = node;
        ps.first_time = s.time;
        profile_.samples.push_back(ps);
      }
      index = found;
      if (node != UINT32_MAX) {
        if (node >= node_sample_.size()) node_sample_.resize(profile_.nodes.size(), UINT32_MAX);
        node_sample_[node] = index;
      }
    }
    auto& ps = profile_.samples[index];
    ps.count += 1;
    ps.period += s.period;
    if (opts_.on_kept_sample) opts_.on_kept_sample(s, index);
  }

  // The stack-tree node of a sample's call chain. Consecutive samples of a
  // thread mostly share their callers and differ near the leaf, so the chain
  // is walked from the root and the part equal to the previous sample's
  // (same process, address space unchanged) is not looked up again.
  uint32_t stack_node(const Sample& s, const AddressSpace& space) {
    const size_t n = s.callchain_size();
    // Contexts first, leaf to root: a marker sets the context of the
    // entries after it (toward the root).
    raw_.resize(n);
    node_.resize(n);
    kernel_.resize(n);
    bool kernel = s.cpumode() == kMiscKernel;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t a = s.callchain_at(i);
      if (a >= kContextMax) kernel = a == kContextKernel || a == kContextGuestKernel;
      raw_[i] = a;
      kernel_[i] = kernel;
    }
    // How many outermost entries equal the previous sample's of this thread
    // (threads interleave in time order, so one cache per thread).
    ChainCache& prev = chain_cache_[s.tid];
    const size_t pn = prev.raw.size();
    size_t common = 0;
    if (s.pid == prev.pid && space.generation() == prev.generation) {
      while (common < n && common < pn && raw_[n - 1 - common] == prev.raw[pn - 1 - common] &&
             kernel_[n - 1 - common] == prev.kernel[pn - 1 - common])
        ++common;
    }
    for (size_t k = 0; k < common; ++k) node_[n - 1 - k] = prev.node[pn - 1 - k];
    uint32_t node = common ? prev.node[pn - common] : UINT32_MAX;
    for (size_t k = common; k < n; ++k) {
      const size_t i = n - 1 - k;
      const uint64_t a = raw_[i];
      if (a < kContextMax) {
        Frame f;
        f.addr = a;
        f.kernel = kernel_[i] != 0;
        f.map = space.find(s.pid, a, f.kernel);
        if (f.map) f.file_offset = f.map->file_offset(a);
        node = child(node, location(f, s.pid));
      }
      node_[i] = node;
    }
    raw_.swap(prev.raw);
    node_.swap(prev.node);
    kernel_.swap(prev.kernel);
    prev.pid = s.pid;
    prev.generation = space.generation();
    if (node == UINT32_MAX) {
      // A chain of markers only: the sampled ip is the one frame.
      Sample leaf = s;
      leaf.callchain = {};
      sample_frames(leaf, space, frames_, 1);
      for (const auto& f : frames_) node = child(node, location(f, s.pid));
      prev.pid = UINT32_MAX;
    }
    return node;
  }

  // Names every location once the walk is over: the symbols were looked up
  // on the resolver thread meanwhile (in location order).
  void finish() {
    name_locations(resolving_.finish(), 0, true);
    count_samples_as_period(profile_);
  }

  // Live: names the new locations (waiting for their symbols), copies the
  // profile out and starts the next interval with no samples; the tables
  // (strings, locations, stack nodes, ...) stay, so ids keep their meaning.
  void take_interval(Profile& out) {
    live_symbols_.clear();
    resolving_.resolved_since(named_, live_symbols_);
    name_locations(live_symbols_, named_, false);
    out = profile_;
    count_samples_as_period(out);
    profile_.samples.clear();
    sample_index_.clear();
    std::fill(node_sample_.begin(), node_sample_.end(), UINT32_MAX);
    for (auto& pe : profile_.events) pe.samples = pe.period = 0;
  }

  Profile take() { return std::move(profile_); }
  Profile& profile() { return profile_; }

 private:
  // Names locations [named_, size): symbols[i - first] is location i's.
  // Inline frames and source lines (`with_lines`) only once the resolver
  // thread is done: they use the symbolizer it owns until then.
  void name_locations(const std::vector<ResolvedSymbol>& symbols, size_t first, bool with_lines) {
    for (size_t i = named_; i < profile_.locations.size(); ++i) {
      const auto& [f, pid] = pending_[i - named_];
      ProfileLocation& loc = profile_.locations[i];
      const ResolvedSymbol& r = symbols[i - first];
      loc.function = function(r, f, loc.mapping);
      loc.symbol_offset = r.offset;
      if (with_lines && (opts_.inline_frames || opts_.srclines) && r.resolved()) add_lines(loc, f, pid);
    }
    pending_.clear();
    named_ = profile_.locations.size();
  }

  struct SampleKey {
    uint32_t event, pid, tid, cpu, comm, node;
    bool operator==(const SampleKey&) const = default;
  };
  struct SampleKeyHash {
    size_t operator()(const SampleKey& k) const {
      uint64_t h = k.node;
      for (uint32_t v : {k.event, k.pid, k.tid, k.cpu, k.comm}) h = (h ^ v) * 0x100000001b3ULL;
      return static_cast<size_t>(mix64(h));
    }
  };
  struct LocKey {
    uint32_t map;
    uint64_t where;
    bool operator==(const LocKey&) const = default;
  };
  struct LocKeyHash {
    size_t operator()(const LocKey& k) const { return static_cast<size_t>(mix64(k.where ^ (uint64_t(k.map) << 44))); }
  };

  // The aggregate last used at this stack node, if it has this key: a node
  // mostly belongs to one thread, so this array check spares the hash
  // lookup for nearly every sample. UINT32_MAX when it does not match.
  uint32_t sample_at_node(const SampleKey& k) const {
    if (k.node >= node_sample_.size()) return UINT32_MAX;
    uint32_t i = node_sample_[k.node];
    if (i == UINT32_MAX) return UINT32_MAX;
    const ProfileSample& ps = profile_.samples[i];
    const bool same = ps.event == k.event && ps.pid == k.pid && ps.tid == k.tid && ps.comm == k.comm &&
                      (!opts_.split_by_cpu || ps.cpu == k.cpu);
    return same ? i : UINT32_MAX;
  }

  bool event_ok(const EventInfo& e) {
    if (e.index >= event_ok_.size()) event_ok_.resize(e.index + 1, -1);
    int8_t& v = event_ok_[e.index];
    if (v < 0) v = opts_.filter.accepts_event(e.name) ? 1 : 0;
    return v == 1;
  }

  uint32_t event_index(const EventInfo& e) {
    if (e.index >= event_map_.size()) event_map_.resize(e.index + 1, UINT32_MAX);
    uint32_t& v = event_map_[e.index];
    if (v == UINT32_MAX) {
      v = static_cast<uint32_t>(profile_.events.size());
      profile_.events.push_back({e.name, e.kind, 0, 0, e.attr.sample_type, static_cast<uint32_t>(e.index)});
    }
    return v;
  }

  StringId unnamed_comm(uint32_t tid) {
    return profile_.intern(tid == 0 ? std::string("swapper") : fmt::format(":{}", int32_t(tid)));
  }

  StringId comm_id_for(std::string_view comm) {
    if (comm.data() == last_comm_.data() && comm.size() == last_comm_.size()) return last_comm_id_;
    last_comm_ = comm;
    last_comm_id_ = profile_.intern(comm);
    return last_comm_id_;
  }

  // One profile mapping per recorded mapping, named as perf names it
  // (anonymous code reads /tmp/perf-PID.map with its process's pid).
  uint32_t mapping(const Mapping* m) {
    if (m->index >= mapping_map_.size()) mapping_map_.resize(m->index + 1, UINT32_MAX);
    uint32_t& v = mapping_map_[m->index];
    if (v == UINT32_MAX) {
      ProfileMapping pm;
      pm.start = m->start, pm.end = m->end, pm.pgoff = m->pgoff;
      pm.path = profile_.intern(m->name);
      pm.object = profile_.intern(mapping_export_name(m->name));
      pm.build_id = m->build_id.empty() ? 0 : profile_.intern(m->build_id.hex());
      pm.kernel = m->kernel;
      pm.seen = m->index;
      v = static_cast<uint32_t>(profile_.mappings.size());
      profile_.mappings.push_back(pm);
    }
    return v;
  }

  // A location's function, found by integers: (mapping, symbol address)
  // for a symbol (its name checked, since objects are shared by build-id
  // across mappings: a miss falls back to the (object, address, name)
  // text key); (path, offset) for an unresolved address.
  uint32_t function(const ResolvedSymbol& r, const Frame& f, uint32_t pm) {
    if (!r.resolved()) {
      const FunctionKey k{f.map ? raw_path_id(f.map) : 0, f.map ? f.file_offset : f.addr};
      auto [id, fresh] = unresolved_index_.find_or_insert(k, static_cast<uint32_t>(profile_.functions.size()));
      if (fresh) new_function(r, f, pm);
      return id;
    }
    auto [id, fresh] = symbol_index_.slot(FunctionKey{pm, r.symbol_addr}, UINT32_MAX);
    if (!fresh && profile_.str(profile_.functions[*id].name) == r.name) return *id;
    const uint32_t fid = symbol_function(r, f, pm);
    if (fresh) *id = fid;
    return fid;
  }

  // The recorded path of a mapping as a number (0: ""), once per mapping:
  // the key of unresolved addresses is the recorded path, not the profile's
  // name of the mapping (several anonymous mappings share one name).
  uint32_t raw_path_id(const Mapping* m) {
    if (m->index >= raw_path_of_.size()) raw_path_of_.resize(m->index + 1, UINT32_MAX);
    uint32_t& v = raw_path_of_[m->index];
    if (v == UINT32_MAX) v = m->path.empty() ? 0 : raw_paths_.emplace(m->path, uint32_t(raw_paths_.size()) + 1).first->second;
    return v;
  }

  uint32_t symbol_function(const ResolvedSymbol& r, const Frame& f, uint32_t pm) {
    std::string key = fmt::format("{}\x1f{:x}\x1f{}", r.dso, r.symbol_addr, r.name);
    auto it = function_index_.find(key);
    if (it != function_index_.end()) return it->second;
    const uint32_t id = new_function(r, f, pm);
    function_index_.emplace(std::move(key), id);
    return id;
  }

  uint32_t new_function(const ResolvedSymbol& r, const Frame& f, uint32_t pm) {
    ProfileFunction fn;
    fn.mapping = pm;
    fn.resolved = r.resolved();
    if (r.resolved()) {
      fn.name = profile_.intern(r.name);
      fn.raw_name = profile_.intern(r.raw_name.empty() ? r.name : r.raw_name);
    } else {
      // perf prints "%-#.*llx": C's '#' adds no 0x to a zero, so mimic it.
      uint64_t a = f.map && !f.kernel ? f.file_offset : f.addr;
      fn.name = profile_.intern(a ? AddressName(a).view() : std::string_view("0000000000000000"));
      fn.raw_name = fn.name;
    }
    uint32_t id = static_cast<uint32_t>(profile_.functions.size());
    profile_.functions.push_back(fn);
    return id;
  }

  uint32_t location(const Frame& f, uint32_t pid) {
    LocKey k{f.map ? f.map->index : (f.kernel ? UINT32_MAX - 1 : UINT32_MAX), f.map ? f.file_offset : f.addr};
    if (!f.map && !f.kernel) k.where = f.addr ^ (uint64_t(pid) << 48);
    auto [known, fresh] = location_index_.find_or_insert(k, static_cast<uint32_t>(profile_.locations.size()));
    if (!fresh) return known;
    // Named in finish() or take_interval(); the symbol is looked up on the resolver thread now.
    resolving_.add(f, pid);
    pending_.push_back({f, pid});
    ProfileLocation loc;
    loc.mapping = f.map ? mapping(f.map) : UINT32_MAX;
    loc.address = f.addr;
    loc.file_offset = f.map ? f.file_offset : 0;
    loc.kernel = f.kernel;
    profile_.locations.push_back(std::move(loc));
    return known;
  }

  void add_lines(ProfileLocation& loc, const Frame& f, uint32_t pid) {
    ObjectHandle h = resolver_.handle(f, pid);
    if (!h.valid()) return;
    uint64_t key = resolver_.lookup_key(f, h);
    Symbolizer& sym = resolver_.symbolizer();
    auto outer_line = sym.srcline(h, key);
    if (opts_.inline_frames && sym.inline_frames(h, key, inlines_) > 0) {
      // Innermost first: each inlined function, then the outer symbol.
      uint32_t line = outer_line ? outer_line->line : 0;
      // Each function's source file: the address's for the innermost, then
      // the file each inlined call was made from.
      std::string_view file = outer_line ? std::string_view(outer_line->file) : std::string_view();
      for (const auto& in : inlines_) {
        // One function per (object, inlined name), like symbols.
        std::string key = fmt::format("{}\x1finline\x1f{}", loc.mapping, in.function);
        auto it = function_index_.find(key);
        uint32_t fid;
        if (it != function_index_.end()) {
          fid = it->second;
        } else {
          ProfileFunction fn;
          fn.name = fn.raw_name = profile_.intern(in.function);
          fn.mapping = loc.mapping;
          fn.resolved = true;
          fn.file = profile_.intern(file);
          fid = static_cast<uint32_t>(profile_.functions.size());
          profile_.functions.push_back(fn);
          function_index_.emplace(std::move(key), fid);
        }
        loc.lines.push_back({fid, line});
        line = in.call_line;
        file = in.call_file;
      }
      if (!profile_.functions[loc.function].file && !file.empty())
        profile_.functions[loc.function].file = profile_.intern(file);
      loc.lines.push_back({loc.function, line});
    } else if (outer_line) {
      profile_.functions[loc.function].file = profile_.intern(outer_line->file);
      loc.lines.push_back({loc.function, outer_line->line});
    }
  }

  uint32_t child(uint32_t parent, uint32_t loc) {
    uint64_t key = (uint64_t(parent) << 32) | loc;
    auto [id, fresh] = node_index_.find_or_insert(key, static_cast<uint32_t>(profile_.nodes.size()));
    if (fresh) {
      uint32_t depth = parent == UINT32_MAX ? 0 : profile_.nodes[parent].depth + 1;
      profile_.nodes.push_back({parent, loc, depth});
    }
    return id;
  }

  SymbolResolver resolver_;
  ResolverThread resolving_;  // owns resolver_ until finish()
  std::vector<std::pair<Frame, uint32_t>> pending_;  // (frame, pid) of locations [named_, size)
  size_t named_ = 0;  // locations [0, named_) have their function
  std::vector<ResolvedSymbol> live_symbols_;  // take_interval()'s, reused
  const ProfileOptions opts_;
  Profile profile_;
  std::vector<Frame> frames_;
  std::vector<InlineFrame> inlines_;
  std::vector<int8_t> event_ok_;
  std::vector<uint32_t> event_map_;
  std::vector<uint32_t> mapping_map_;
  std::unordered_map<std::string, uint32_t> function_index_;
  struct U64Hash {
    size_t operator()(uint64_t k) const { return static_cast<size_t>(mix64(k)); }
  };
  struct FunctionKey {
    uint32_t scope;  // resolved: the profile mapping; unresolved: the recorded path's number
    uint64_t where;  // resolved: the symbol's address; unresolved: the offset (or address)
    bool operator==(const FunctionKey&) const = default;
  };
  struct FunctionKeyHash {
    size_t operator()(const FunctionKey& k) const { return static_cast<size_t>(mix64(k.where ^ (uint64_t(k.scope) << 44))); }
  };
  FlatIndex<FunctionKey, FunctionKeyHash> symbol_index_;
  FlatIndex<FunctionKey, FunctionKeyHash> unresolved_index_;
  std::unordered_map<std::string, uint32_t> raw_paths_;  // recorded path -> its number (once per mapping)
  std::vector<uint32_t> raw_path_of_;                    // by Mapping::index
  FlatIndex<LocKey, LocKeyHash> location_index_;
  FlatIndex<uint64_t, U64Hash> node_index_;
  FlatIndex<SampleKey, SampleKeyHash> sample_index_;
  std::vector<uint32_t> node_sample_;  // by stack node: an aggregate there, or UINT32_MAX
  struct ChainCache {
    std::vector<uint64_t> raw;
    std::vector<uint32_t> node;
    std::vector<uint8_t> kernel;
    uint32_t pid = UINT32_MAX;
    uint64_t generation = 0;
  };
  std::unordered_map<uint32_t, ChainCache> chain_cache_;  // by tid
  std::vector<uint64_t> raw_;
  std::vector<uint32_t> node_;
  std::vector<uint8_t> kernel_;
  std::string_view last_comm_;
  StringId last_comm_id_ = 0;
};

ProfileBuilder::ProfileBuilder(Symbolizer& symbolizer, const ProfileOptions& options)
    : impl_(std::make_unique<Impl>(symbolizer, options)) {}
ProfileBuilder::~ProfileBuilder() = default;

void ProfileBuilder::add(const Sample& s, const AddressSpace& space) { impl_->on_sample(s, space); }

void ProfileBuilder::take_interval(Profile& out) { impl_->take_interval(out); }

Profile ProfileBuilder::finish() {
  impl_->finish();
  return impl_->take();
}

Profile build_profile(RecordReader& reader, Symbolizer& symbolizer, const ProfileOptions& options) {
  RecordingWalker walker(reader, dwarf_unwinding(symbolizer.options().cache_root));
  walker.set_jit_dirs(symbolizer.options().jit_dirs);
  ProfileBuilder b(symbolizer, options);
  RecordingWalker::RecordFn on_record;
  if (options.on_record) on_record = [&](const format::RecordView& r) { options.on_record(r, walker.session()); };
  walker.run([&](const Sample& s) { b.add(s, walker.space()); }, on_record, options.progress);
  Profile p = b.finish();
  const auto& session = walker.session();
  p.hostname = session.feature_string(kFeatHostname).value_or("");
  p.os_release = session.feature_string(kFeatOsRelease).value_or("");
  p.arch = session.feature_string(kFeatArch).value_or("");
  p.cpu_desc = session.feature_string(kFeatCpuDesc).value_or("");
  if (auto cmd = session.feature_string_list(kFeatCmdline)) {
    for (const auto& a : *cmd) { p.cmdline += p.cmdline.empty() ? "" : " "; p.cmdline += a; }
  }
  p.cpus = cpu_places(session);
  if (!options.header_facts_of.empty()) p.header_facts = header_facts_text(session, reader, options.header_facts_of);
  for (const auto& ps : p.samples)
    if (!p.thread_comms.count(ps.tid)) {
      std::string_view comm = walker.space().comm(ps.pid, ps.tid);
      p.thread_comms[ps.tid] = comm.empty() || ps.tid == UINT32_MAX ? ps.comm : p.intern(comm);
    }
  p.lost_samples = walker.stats().lost_samples;
  p.outcome.truncated_bytes = walker.stats().truncated_bytes;
  p.outcome.stop_error = walker.stats().stop_error;
  p.notes = symbolizer.notes();
  if (const DwarfUnwinder* u = walker.unwinder(); u && !u->note().empty()) p.notes.push_back(u->note());
  if (!walker.jit_note().empty()) p.notes.push_back(walker.jit_note());
  if (walker.stats().bad_samples)
    p.notes.push_back(fmt::format("skipped {} malformed samples ({})", walker.stats().bad_samples, walker.stats().first_bad_sample));
  return p;
}

}  // namespace sonde::analysis
