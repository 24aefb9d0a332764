#include "analysis/address_space.h"

#include <algorithm>

#include "util/byte_reader.h"

namespace sonde::analysis {

using namespace sonde::format;

namespace {
constexpr uint32_t kKernelPid = 0xffffffffu;
}

std::string_view AddressSpace::intern(std::string_view s) { return *strings_.emplace(s).first; }

void AddressSpace::on_record(const RecordView& rec) {
  last_added_ = nullptr;
  if (rec.header.type == kMmap || rec.header.type == kMmap2 || rec.header.type == kFork ||
      (rec.header.type == kComm && (rec.header.misc & kMiscCommExec)))
    ++generation_;
  ByteReader r(rec.bytes);
  r.skip(sizeof(RecordHeader));
  switch (rec.header.type) {
    case kMmap:
    case kMmap2: {
      Mapping m;
      uint32_t pid = 0, tid = 0;
      uint64_t len = 0;
      if (!r.read(pid) || !r.read(tid) || !r.read(m.start) || !r.read(len) || !r.read(m.pgoff)) return;
      if (rec.header.type == kMmap2) {
        std::span<const uint8_t> u;
        if (!r.bytes(24, u) || !r.read(m.prot) || !r.skip(4)) return;
        if (rec.header.misc & kMiscMmapBuildId) {
          uint8_t size = std::min<uint8_t>(u[0], kBuildIdMax);
          if (size) m.build_id = BuildId::from_bytes(u.subspan(4, size));
        }
      } else {
        m.prot = 0;  // MMAP has no prot; data maps are flagged by misc
      }
      std::string_view name;
      if (!r.cstring(name)) return;
      if (rec.header.misc & kMiscMmapData) return;  // data mappings do not hold code
      m.end = len > UINT64_MAX - m.start ? UINT64_MAX : m.start + len;
      m.pid = pid;
      m.kernel = pid == kKernelPid || (rec.header.misc & kMiscCpumodeMask) == kMiscKernel;
      m.path = intern(name);
      add_mapping(m);
      return;
    }
    case kComm: {
      std::fill(std::begin(comm_cache_), std::end(comm_cache_), CommHit{});
      uint32_t pid = 0, tid = 0;
      std::string_view name;
      if (!r.read(pid) || !r.read(tid) || !r.cstring(name)) return;
      // An exec keeps the old image's mappings, as perf does: samples taken
      // while the kernel loads the new image (after COMM exec, before its
      // MMAP2s) still return to the old image's execve, and the new
      // image's MMAP2s replace whatever they overlap.
      comms_[tid] = intern(name);
      return;
    }
    case kFork: {
      std::fill(std::begin(comm_cache_), std::end(comm_cache_), CommHit{});
      uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
      if (!r.read(pid) || !r.read(ppid) || !r.read(tid) || !r.read(ptid)) return;
      if (pid != ppid && !processes_.count(pid)) {
        auto it = processes_.find(ppid);
        if (it != processes_.end()) processes_[pid] = it->second;
      }
      if (!comms_.count(tid)) {
        auto c = comms_.find(ptid);
        if (c != comms_.end()) comms_[tid] = c->second;
      }
      return;
    }
    case kHeaderBuildId: {
      BuildIdRecordFixed b;
      if (rec.bytes.size() < sizeof b) return;
      std::memcpy(&b, rec.bytes.data(), sizeof b);
      ByteReader rn(rec.bytes.data() + sizeof b, rec.bytes.size() - sizeof b);
      std::string_view name;
      if (!rn.cstring(name)) return;
      uint8_t size = (b.header.misc & kMiscBuildIdSize) ? std::min<uint8_t>(b.size, kBuildIdMax) : kBuildIdMax;
      // Without the size bit perf assumes 20 bytes; trailing zeros are padding.
      while (!(b.header.misc & kMiscBuildIdSize) && size > 0 && b.build_id[size - 1] == 0) --size;
      header_build_ids_[intern(name)] = BuildId::from_bytes({b.build_id, size});
      return;
    }
    default:
      return;
  }
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
