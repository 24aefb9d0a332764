#include "analysis/symbol_resolver.h"

namespace sonde::analysis {

namespace {

bool is_kernel_path(std::string_view p) { return p.starts_with("[kernel.kallsyms]") || p.starts_with("[guest.kernel"); }

// A frame with no object to look in (no mapping, or one sonde cannot open).
ResolvedSymbol unknown_object(const Frame& f) {
  ResolvedSymbol r;
  r.reason = Reason::kUnknown;
  r.dso = f.map ? f.map->name : std::string_view("[unknown]");
  return r;
}

}  // namespace

ObjectHandle SymbolResolver::handle(const Frame& f, uint32_t pid) {
  if (!f.map) {
    if (!f.kernel) return {};
    if (!kernel_known_) kernel_ = sym_.kernel(BuildId{}), kernel_known_ = true;
    return kernel_;
  }
  uint32_t idx = f.map->index;
  if (idx >= by_mapping_.size()) by_mapping_.resize(idx + 1);
  ObjectHandle& h = by_mapping_[idx];
  if (!h.valid()) {
    if (f.map->kernel && (is_kernel_path(f.map->path) || f.map->pid == 0xffffffffu))
      h = sym_.kernel(is_kernel_path(f.map->path) ? f.map->build_id : BuildId{});
    else
      h = sym_.object(f.map->build_id, f.map->path, static_cast<pid_t>(pid));
  }
  return h;
}

void SymbolResolver::prefetch(const Mapping& m) {
  if (m.kernel && is_kernel_path(m.path)) sym_.prefetch_kernel(m.build_id);
}

uint64_t SymbolResolver::lookup_key(const Frame& f, ObjectHandle h) const {
  switch (sym_.info(h).kind) {
    case ObjectKind::kKernel:
    case ObjectKind::kPerfMap:
      return f.addr;
    default:
      return f.file_offset;
  }
}

const ResolvedSymbol& SymbolResolver::resolve(const Frame& f, uint32_t pid) {
  ObjectHandle h = handle(f, pid);
  if (!h.valid()) {
    unresolved_ = unknown_object(f);
    return unresolved_;
  }
  uint64_t key = lookup_key(f, h);
  Key k{f.map ? f.map->index : UINT32_MAX, key};
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(k, sym_.lookup(h, key)).first->second;
}

ResolvedSymbol SymbolResolver::resolve_once(const Frame& f, uint32_t pid) {
  ObjectHandle h = handle(f, pid);
  if (!h.valid()) return unknown_object(f);
  return sym_.lookup(h, lookup_key(f, h));
}

SymbolName SymbolResolver::symbolize(const Frame& f, uint32_t pid) {
  const ResolvedSymbol& r = resolve(f, pid);
  SymbolName n;
  n.name = r.name;
  n.offset = r.offset;
  n.reason = reason_text(r.reason);
  n.dso = !r.dso.empty() ? r.dso : (f.map ? f.map->name : std::string_view("[unknown]"));
  return n;
}

void SymbolResolver::inline_names(const Frame& f, uint32_t pid, std::vector<std::string_view>& out) {
  out.clear();
  ObjectHandle h = handle(f, pid);
  if (!h.valid() || sym_.info(h).kind != ObjectKind::kElf) return;
  sym_.inline_frames(h, lookup_key(f, h), inlines_);
  for (const auto& in : inlines_) out.push_back(in.function);
}

void SymbolResolver::function_chain(const Frame& f, uint32_t pid, std::vector<InlineFrame>& out) {
  out.clear();
  ObjectHandle h = handle(f, pid);
  if (!h.valid() || sym_.info(h).kind != ObjectKind::kElf) return;
  sym_.inline_frames(h, lookup_key(f, h), out, true);
}

bool SymbolResolver::source_line(const Frame& f, uint32_t pid, SourceLine& out) {
  ObjectHandle h = handle(f, pid);
  if (!h.valid() || sym_.info(h).kind != ObjectKind::kElf) return false;
  auto line = sym_.srcline(h, lookup_key(f, h));
  if (!line || line->file.empty() || line->line == 0) return false;
  out = *line;
  return true;
}

}  // namespace sonde::analysis
