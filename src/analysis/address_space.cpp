#include "analysis/address_space.h"

#include "util/mapped_path.h"

#include <algorithm>

#include "format/records.h"

namespace sonde::analysis {

std::string Mapping::long_name() const {
  // perf renames anonymous memory only when it is executable (map__new).
  if (kernel || (!executable() && !path.empty())) return std::string(path);
  return mapping_long_name(path, pid);
}

using namespace sonde::format;

namespace {

constexpr uint32_t kKernelPid = 0xffffffffu;

// The mapping an MMAP or MMAP2 describes, its prot and build id aside.
template <typename MmapKind>
Mapping mapping_of(const MmapKind& v) {
  Mapping m;
  m.start = v.addr;
  m.end = v.len > UINT64_MAX - v.addr ? UINT64_MAX : v.addr + v.len;
  m.pgoff = v.pgoff;
  m.pid = v.pid;
  m.kernel = v.pid == kKernelPid || (v.misc & kMiscCpumodeMask) == kMiscKernel;
  return m;
}

// perf's own recordings name build-ids in a table (HEADER_BUILD_ID), not in
// their MMAP2s: a file mapped without one takes the table's, so that its
// symbols come from that build (the cache) and never from whatever file is
// at the path now.
bool takes_table_build_id(const Mapping& m) {
  return m.build_id.empty() && !m.kernel && !m.path.empty() && m.path.front() == '/';
}

}  // namespace

std::string_view AddressSpace::intern(std::string_view s) { return *strings_.emplace(s).first; }

void AddressSpace::on_record(const RecordView& rec) {
  last_added_ = nullptr;
  if (rec.header.type == kMmap || rec.header.type == kMmap2 || rec.header.type == kFork ||
      (rec.header.type == kComm && (rec.header.misc & kMiscCommExec)))
    ++generation_;
  switch (rec.header.type) {
    case kMmap: {
      auto v = MmapView::parse(rec.bytes);
      if (!v || !v->filename_terminated || (v->misc & kMiscMmapData)) return;  // data mappings do not hold code
      Mapping m = mapping_of(*v);
      m.prot = 0;  // MMAP has no prot; data maps are flagged by misc
      m.path = intern(v->filename);
      add_mapping(m);
      return;
    }
    case kMmap2: {
      auto v = Mmap2View::parse(rec.bytes);
      if (!v || !v->filename_terminated || (v->misc & kMiscMmapData)) return;
      Mapping m = mapping_of(*v);
      m.prot = v->prot;
      if (!v->build_id.empty()) m.build_id = BuildId::from_bytes(v->build_id);
      m.path = intern(v->filename);
      add_mapping(m);
      return;
    }
    case kComm: {
      std::fill(std::begin(comm_cache_), std::end(comm_cache_), CommHit{});
      // An exec keeps the old image's mappings, as perf does: samples taken
      // while the kernel loads the new image (after COMM exec, before its
      // MMAP2s) still return to the old image's execve, and the new
      // image's MMAP2s replace whatever they overlap.
      auto c = CommView::parse(rec.bytes);
      if (c && c->comm_terminated) comms_[c->tid] = intern(c->comm);
      return;
    }
    case kFork: {
      std::fill(std::begin(comm_cache_), std::end(comm_cache_), CommHit{});
      auto f = ForkExitView::parse(rec.bytes);
      if (!f) return;
      if (f->pid != f->ppid && !processes_.count(f->pid)) {
        auto it = processes_.find(f->ppid);
        if (it != processes_.end()) processes_[f->pid] = it->second;
      }
      if (!comms_.count(f->tid)) {
        auto c = comms_.find(f->ptid);
        if (c != comms_.end()) comms_[f->tid] = c->second;
      }
      return;
    }
    case kHeaderBuildId: {
      auto b = HeaderBuildIdView::parse(rec.bytes);
      if (!b || !b->filename_terminated) return;
      const std::string_view path = intern(b->filename);
      const BuildId id = BuildId::from_bytes(b->build_id);
      header_build_ids_[path] = id;
      // A table after the mappings (perf's pipe mode writes it at the end).
      for (Mapping& m : mappings_)
        if (m.path == path && takes_table_build_id(m)) m.build_id = id;
      return;
    }
    default:
      return;
  }
}

void AddressSpace::add_code(uint32_t pid, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t prot,
                            std::string_view path) {
  ++generation_;
  Mapping m;
  m.start = start;
  m.end = end;
  m.pgoff = pgoff;
  m.prot = prot;
  m.pid = pid;
  m.path = intern(path);
  add_mapping(m);
  last_added_ = nullptr;  // not a record's
}

void AddressSpace::insert_sorted(std::vector<const Mapping*>& maps, const Mapping* m) {
  // Remove or trim whatever the new mapping overlaps, as the kernel did.
  std::vector<const Mapping*> keep;
  keep.reserve(maps.size() + 2);
  for (const Mapping* old : maps) {
    if (old->end <= m->start || old->start >= m->end) {
      keep.push_back(old);
      continue;
    }
    if (old->start < m->start) {
      Mapping left = *old;
      left.end = m->start;
      left.index = static_cast<uint32_t>(mappings_.size());
      mappings_.push_back(left);
      keep.push_back(&mappings_.back());
    }
    if (old->end > m->end) {
      Mapping right = *old;
      right.pgoff += m->end - old->start;
      right.start = m->end;
      right.index = static_cast<uint32_t>(mappings_.size());
      mappings_.push_back(right);
      keep.push_back(&mappings_.back());
    }
  }
  keep.push_back(m);
  std::sort(keep.begin(), keep.end(), [](const Mapping* a, const Mapping* b) { return a->start < b->start; });
  maps.swap(keep);
}

void AddressSpace::add_mapping(Mapping m) {
  if (takes_table_build_id(m)) {
    auto it = header_build_ids_.find(m.path);
    if (it != header_build_ids_.end()) m.build_id = it->second;
  }
  m.name = intern(m.long_name());
  m.index = static_cast<uint32_t>(mappings_.size());
  mappings_.push_back(m);
  const Mapping* stored = &mappings_.back();
  last_added_ = stored;
  insert_sorted(m.kernel && m.pid == kKernelPid ? kernel_.maps : processes_[m.pid].maps, stored);
}

namespace {
const Mapping* find_in(const std::vector<const Mapping*>& maps, uint64_t addr) {
  auto it = std::upper_bound(maps.begin(), maps.end(), addr, [](uint64_t a, const Mapping* m) { return a < m->start; });
  if (it == maps.begin()) return nullptr;
  --it;
  return addr < (*it)->end ? *it : nullptr;
}
}  // namespace

const Mapping* AddressSpace::find(uint32_t pid, uint64_t addr, bool kernel) const {
  if (kernel) return find_in(kernel_.maps, addr);
  ProcessHit& hit = process_cache_[pid & 7];
  if (!hit.process || hit.pid != pid) {
    auto it = processes_.find(pid);
    if (it == processes_.end()) return nullptr;
    hit = {pid, &it->second};
  }
  return find_in(hit.process->maps, addr);
}

std::string_view AddressSpace::comm(uint32_t pid, uint32_t tid) const {
  CommHit& hit = comm_cache_[tid & 15];
  if (hit.tid == tid && hit.pid == pid) return hit.comm;
  auto it = comms_.find(tid);
  if (it == comms_.end()) it = comms_.find(pid);
  hit = {pid, tid, it != comms_.end() ? it->second : std::string_view{}};
  return hit.comm;
}

}  // namespace sonde::analysis
