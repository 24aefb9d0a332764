#include "annotate/sample_hists.h"

#include <algorithm>

#include "format/session.h"
#include "symbol/reason.h"

namespace sonde::annotate {

namespace {

std::string_view file_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

uint64_t symbol_key(ObjectHandle h, uint64_t symbol_addr) {
  return (symbol_addr * 0x9e3779b97f4a7c15ULL) ^ (uint64_t(h.index) << 1);
}

}  // namespace

HistCollector::HistCollector(analysis::SymbolResolver& resolver, const analysis::AddressSpace& space,
                             CollectOptions opts)
    : resolver_(resolver), space_(space), opts_(std::move(opts)) {}

bool HistCollector::dso_wanted(const analysis::Frame& f) const {
  if (opts_.dsos.empty()) return true;
  std::string_view path = f.map ? f.map->path : std::string_view("[unknown]");
  for (const auto& d : opts_.dsos)
    if (path == d || file_name(path) == d) return true;
  return false;
}

bool HistCollector::name_wanted(std::string_view name) const {
  if (opts_.symbols.empty()) return true;
  return std::find(opts_.symbols.begin(), opts_.symbols.end(), name) != opts_.symbols.end();
}

bool HistCollector::past_vmlinux_size(const analysis::Frame& f, const ResolvedSymbol& r) const {
  if (!f.kernel || !opts_.kernel_sizes) return false;
  const TableSymbol* t = opts_.kernel_sizes->find(r.symbol_addr);
  return t && t->addr == r.symbol_addr && r.offset >= t->size;
}

SymbolHist* HistCollector::symbol_for(Event& ev, const analysis::Frame& f, uint32_t pid, uint64_t* offset) {
  const ResolvedSymbol& r = resolver_.resolve(f, pid);
  if (!r.resolved() || past_vmlinux_size(f, r)) return nullptr;
  ObjectHandle h = resolver_.handle(f, pid);
  uint64_t key = symbol_key(h, r.symbol_addr);
  auto [it, fresh] = ev.by_symbol.try_emplace(key, ev.hists.symbols.size());
  if (fresh) {
    SymbolHist s;
    s.name = r.name;
    s.dso = r.dso;
    if (f.map) s.build_id = f.map->build_id, s.pid = pid;
    s.kernel = f.kernel;
    if (f.kernel && s.build_id.empty()) {
      // perf's files name the kernel's build-id in their header, not on
      // the "[kernel.kallsyms]_text" mapping.
      auto it = space_.header_build_ids().find("[kernel.kallsyms]");
      if (it != space_.header_build_ids().end()) s.build_id = it->second;
    }
    s.object = h;
    // A jitdump's table is by offset into the dump: the code runs at the
    // sampled address less the offset into the symbol.
    const bool jitdump = h.valid() && resolver_.symbolizer().info(h).kind == ObjectKind::kJitDump;
    s.symbol_addr = jitdump ? f.addr - r.offset : r.symbol_addr;
    s.symbol_size = r.symbol_size;
    s.file_offset = f.file_offset - r.offset;
    ev.hists.symbols.push_back(std::move(s));
  }
  *offset = r.offset;
  return &ev.hists.symbols[it->second];
}

void HistCollector::note_unresolved(Event& ev, const analysis::Frame& f, uint32_t pid) {
  ObjectHandle h = resolver_.handle(f, pid);
  auto [it, fresh] = ev.unresolved.try_emplace(h.valid() ? h.index : UINT32_MAX, ev.hists.unresolved.size());
  if (fresh) {
    UnresolvedObject u;
    u.dso = f.map ? std::string(f.map->name) : "[unknown]";
    if (h.valid()) {
      const ObjectInfo& info = resolver_.symbolizer().info(h);
      u.why = !info.note.empty() ? info.note : std::string(reason_text(info.reason));
      u.not_found = info.reason == Reason::kNotFound;
      if (f.map) u.build_id = f.map->build_id, u.pid = pid;
    } else {
      u.why = "no mapping holds the address";
    }
    ev.hists.unresolved.push_back(std::move(u));
  }
  ev.hists.unresolved[it->second].samples++;
}

void HistCollector::add(const format::Sample& s) {
  auto [ei, fresh] = event_index_.try_emplace(s.event, events_.size());
  if (fresh) {
    events_.emplace_back();
    events_.back().hists.event = s.event ? s.event->name : "[unknown event]";
  }
  Event& ev = events_[ei->second];
  analysis::sample_frames(s, space_, frames_);
  if (frames_.empty() || !dso_wanted(frames_[0])) return;  // perf: a filtered sample counts nowhere
  uint64_t offset = 0;
  SymbolHist* sym = symbol_for(ev, frames_[0], s.pid, &offset);
  if (!sym) {
    if (opts_.symbols.empty()) ev.hists.nr_samples++, ev.hists.total_period += s.period;
    note_unresolved(ev, frames_[0], s.pid);
    return;
  }
  // perf annotate SYMBOL drops every other sample before it counts them:
  // its global percentages are of the named symbols' samples.
  if (name_wanted(sym->name)) {
    ev.hists.nr_samples++, ev.hists.total_period += s.period;
    sym->self[offset].add(s.period);
    sym->self_total.add(s.period);
  }
  if (opts_.inclusive && frames_.size() > 1) add_callers(ev, s.pid, s.period);
}

// Each caller frame holds a return address: the call is the instruction
// that ends there, so the byte before it names the call.
void HistCollector::add_callers(Event& ev, uint32_t pid, uint64_t period) {
  seen_.clear();
  for (size_t i = 1; i < frames_.size(); ++i) {
    analysis::Frame f = frames_[i];
    // The first user frame after kernel ones is where user code was
    // interrupted, not a return address.
    if (!f.map || f.addr == 0 || (frames_[i - 1].kernel && !f.kernel)) continue;
    f.addr -= 1, f.file_offset -= 1;
    uint64_t offset = 0;
    SymbolHist* sym = symbol_for(ev, f, pid, &offset);
    if (!sym || !name_wanted(sym->name)) continue;
    size_t index = size_t(sym - ev.hists.symbols.data());
    std::pair<size_t, uint64_t> key{index, offset};
    if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) continue;
    bool symbol_seen = std::any_of(seen_.begin(), seen_.end(), [&](const auto& p) { return p.first == index; });
    seen_.push_back(key);
    sym->children[offset].add(period);
    if (!symbol_seen) sym->children_total.add(period);
  }
}

std::vector<EventHists> HistCollector::take() {
  std::vector<EventHists> out;
  for (auto& ev : events_) out.push_back(std::move(ev.hists));
  events_.clear();
  event_index_.clear();
  return out;
}

}  // namespace sonde::annotate
