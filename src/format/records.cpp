#include "format/records.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "format/attr_sizes.h"
#include "util/byte_reader.h"

namespace sonde::format {

namespace {

// The fixed part of a record (T starts with its RecordHeader), when the
// bytes hold all of it and the header names the expected type.
template <typename T>
bool read_fixed(ByteReader& r, uint32_t type, T& out) {
  return r.read(out) && out.header.type == type;
}

// The text that starts at `r`: up to its NUL, or to the record's end when
// there is none.
void read_text(ByteReader& r, std::string_view& text, bool& terminated) {
  terminated = r.cstring(text);
  if (!terminated) text = {reinterpret_cast<const char*>(r.pos()), r.remaining()};
}

size_t clamp_build_id_size(size_t size) { return std::min(size, kBuildIdMax); }

// Turns an MMAP2 into the build-id form (misc bit 14): the union holds the
// id (at most 20 bytes, zero-filled after) instead of the inode. Both forms
// have the same size, so a record can be rewritten in place.
void set_mmap2_build_id(Mmap2Fixed& m, std::span<const uint8_t> id) {
  std::memset(&m.inode, 0, sizeof m.inode);
  m.bid.build_id_size = static_cast<uint8_t>(clamp_build_id_size(id.size()));
  if (m.bid.build_id_size) std::memcpy(m.bid.build_id, id.data(), m.bid.build_id_size);
  m.header.misc |= kMiscMmapBuildId;
}

// The kernel writes the build-id form with 1 to 20 id bytes and zero
// reserved bytes. Anything else under the build-id bit is an inode-form
// record that got the bit from another session's event (the kernel leaks
// it: docs/record.md, "Build-ids"): maj's low byte lands in the size, its
// other bytes in the reserved ones. perf 6.1 clamps the size instead, and
// aborts on such records; sonde reads them as what they are.
bool is_leaked_build_id_bit(const Mmap2Fixed& f) {
  return f.bid.build_id_size == 0 || f.bid.build_id_size > kBuildIdMax || f.bid.reserved1 != 0 ||
         f.bid.reserved2 != 0;
}

}  // namespace

std::optional<Mmap2View> Mmap2View::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  Mmap2Fixed f;
  if (!read_fixed(r, kMmap2, f)) return std::nullopt;
  Mmap2View v;
  v.misc = f.header.misc;
  v.pid = f.pid, v.tid = f.tid;
  v.addr = f.addr, v.len = f.len, v.pgoff = f.pgoff;
  if (v.has_build_id() && !is_leaked_build_id_bit(f)) {
    v.build_id = bytes.subspan(offsetof(Mmap2Fixed, bid.build_id), f.bid.build_id_size);
  } else {
    v.misc = static_cast<uint16_t>(v.misc & ~kMiscMmapBuildId);
    v.maj = f.inode.maj, v.min = f.inode.min;
    v.ino = f.inode.ino, v.ino_generation = f.inode.ino_generation;
  }
  v.prot = f.prot, v.flags = f.flags;
  read_text(r, v.filename, v.filename_terminated);
  return v;
}

std::optional<MmapView> MmapView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  MmapFixed f;
  if (!read_fixed(r, kMmap, f)) return std::nullopt;
  MmapView v;
  v.misc = f.header.misc;
  v.pid = f.pid, v.tid = f.tid;
  v.addr = f.addr, v.len = f.len, v.pgoff = f.pgoff;
  read_text(r, v.filename, v.filename_terminated);
  return v;
}

std::optional<CommView> CommView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  CommFixed f;
  if (!read_fixed(r, kComm, f)) return std::nullopt;
  CommView v;
  v.misc = f.header.misc;
  v.pid = f.pid, v.tid = f.tid;
  read_text(r, v.comm, v.comm_terminated);
  return v;
}

std::optional<ForkExitView> ForkExitView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  ForkExit f;
  if (!r.read(f) || (f.header.type != kFork && f.header.type != kExit)) return std::nullopt;
  return ForkExitView{f.header.misc, f.pid, f.ppid, f.tid, f.ptid, f.time};
}

std::optional<KsymbolView> KsymbolView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  KsymbolFixed f;
  if (!read_fixed(r, kKsymbol, f)) return std::nullopt;
  KsymbolView v{f.addr, f.len, f.ksym_type, f.flags, {}, false};
  read_text(r, v.name, v.name_terminated);
  return v;
}

std::optional<BpfEventView> BpfEventView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  BpfEvent f;
  if (!read_fixed(r, kBpfEvent, f)) return std::nullopt;
  return BpfEventView{f.type, f.flags, f.id};
}

std::optional<RecordThread> record_thread(std::span<const uint8_t> bytes) {
  RecordHeader h;
  if (!ByteReader(bytes).read(h)) return std::nullopt;
  switch (h.type) {
    case kMmap:
      if (auto m = MmapView::parse(bytes)) return RecordThread{m->pid, m->tid};
      break;
    case kMmap2:
      if (auto m = Mmap2View::parse(bytes)) return RecordThread{m->pid, m->tid};
      break;
    case kComm:
      if (auto c = CommView::parse(bytes)) return RecordThread{c->pid, c->tid};
      break;
    case kFork:
    case kExit:
      if (auto f = ForkExitView::parse(bytes)) return RecordThread{f->pid, f->tid};
      break;
    default:
      break;
  }
  return std::nullopt;
}

IdIndexView::Entry IdIndexView::entry(size_t i) const {
  const uint8_t* p = entries.data() + 32 * i;
  return {load<uint64_t>(p), load<uint64_t>(p + 8), load<uint64_t>(p + 16), load<uint64_t>(p + 24)};
}

std::optional<IdIndexView> IdIndexView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  RecordHeader h;
  IdIndexView v;
  if (!r.read(h) || h.type != kIdIndex) return std::nullopt;
  r.read(v.nr);  // a record without its count is one without entries
  const size_t whole = std::min<uint64_t>(v.nr, r.remaining() / 32);
  v.entries = {r.pos(), whole * 32};
  return v;
}

std::optional<LostView> LostView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  Lost f;
  if (!read_fixed(r, kLost, f)) return std::nullopt;
  return LostView{f.id, f.lost};
}

std::optional<ReadView> ReadView::parse(std::span<const uint8_t> bytes, uint64_t read_format) {
  if (read_format & PERF_FORMAT_GROUP) return std::nullopt;
  ByteReader r(bytes);
  ReadFixed f;
  if (!read_fixed(r, kRead, f)) return std::nullopt;
  ReadView v;
  v.pid = f.pid, v.tid = f.tid, v.value = f.value;
  if ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) && !r.read(v.enabled)) return std::nullopt;
  if ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) && !r.read(v.running)) return std::nullopt;
  uint64_t id = 0;
  if (read_format & PERF_FORMAT_ID) {
    if (!r.read(id)) return std::nullopt;
    v.id = id;
  }
  return v;
}

std::optional<LostSamplesView> LostSamplesView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  LostSamples f;
  if (!read_fixed(r, kLostSamples, f)) return std::nullopt;
  return LostSamplesView{f.lost};
}

std::optional<HeaderBuildIdView> HeaderBuildIdView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  BuildIdRecordFixed f;
  if (!read_fixed(r, kHeaderBuildId, f)) return std::nullopt;
  HeaderBuildIdView v;
  v.misc = f.header.misc;
  v.pid = f.pid;
  size_t size = kBuildIdMax;
  if (f.header.misc & kMiscBuildIdSize)
    size = clamp_build_id_size(f.size);
  else
    while (size > 0 && f.build_id[size - 1] == 0) --size;  // 20 bytes assumed, zero-padded
  v.build_id = bytes.subspan(offsetof(BuildIdRecordFixed, build_id), size);
  read_text(r, v.filename, v.filename_terminated);
  return v;
}

uint64_t HeaderAttrView::id(size_t i) const { return load<uint64_t>(ids.data() + 8 * i); }

std::optional<HeaderAttrView> HeaderAttrView::parse(std::span<const uint8_t> bytes, std::string* why) {
  ByteReader r(bytes);
  RecordHeader h;
  if (!r.read(h) || h.type != kHeaderAttr) {
    if (why) *why = "not a HEADER_ATTR record";
    return std::nullopt;
  }
  HeaderAttrView v;
  // attr.size tells how much of the record is the attr; the ids follow it.
  const uint32_t attr_size = read_attr(bytes.subspan(sizeof h), v.attr, why);
  if (attr_size == 0) return std::nullopt;
  auto ids = bytes.subspan(sizeof h + attr_size);
  v.ids = ids.first(ids.size() / 8 * 8);
  return v;
}

std::optional<FeatureView> FeatureView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  FeatureFixed f;
  if (!read_fixed(r, kHeaderFeature, f)) return std::nullopt;
  return FeatureView{f.feat_id, bytes.subspan(sizeof f)};
}

std::optional<EventUpdateView> EventUpdateView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  EventUpdateFixed f;
  if (!read_fixed(r, kEventUpdate, f)) return std::nullopt;
  return EventUpdateView{f.type, f.id, bytes.subspan(sizeof f)};
}

std::optional<std::string_view> EventUpdateView::name() const {
  if (type != kEventUpdateName) return std::nullopt;
  ByteReader r(payload);
  std::string_view s;
  if (!r.cstring(s)) return std::nullopt;
  return s;
}

std::optional<std::string_view> EventUpdateView::name_text() const {
  if (type != kEventUpdateName) return std::nullopt;
  const char* p = reinterpret_cast<const char*>(payload.data());
  return std::string_view(p, strnlen(p, payload.size()));
}

std::optional<std::string_view> EventUpdateView::unit() const {
  if (type != kEventUpdateUnit) return std::nullopt;
  ByteReader r(payload);
  std::string_view s;
  if (!r.cstring(s)) return std::nullopt;
  return s;
}

std::optional<double> EventUpdateView::scale() const {
  if (type != kEventUpdateScale || payload.size() < sizeof(double)) return std::nullopt;
  return load<double>(payload.data());
}

// The entries of a record whose fixed part `Fixed` (of type `type`) ends
// with a count `nr` of `Entry`s: as many as it says, or as fit.
template <typename Fixed, typename Entry>
std::optional<std::span<const uint8_t>> counted_entries(std::span<const uint8_t> bytes, uint32_t type) {
  ByteReader r(bytes);
  Fixed f;
  if (!read_fixed(r, type, f)) return std::nullopt;
  auto rest = bytes.subspan(sizeof f);
  size_t n = std::min<uint64_t>(f.nr, rest.size() / sizeof(Entry));
  return rest.first(n * sizeof(Entry));
}

std::optional<ThreadMapView> ThreadMapView::parse(std::span<const uint8_t> bytes) {
  auto e = counted_entries<ThreadMapFixed, ThreadMapEntry>(bytes, kThreadMap);
  if (!e) return std::nullopt;
  return ThreadMapView{*e};
}

ThreadMapEntry ThreadMapView::entry(size_t i) const {
  ThreadMapEntry e = load<ThreadMapEntry>(entries.data() + i * sizeof(ThreadMapEntry));
  e.comm[sizeof e.comm - 1] = '\0';
  return e;
}

std::optional<CpuMapView> CpuMapView::parse(std::span<const uint8_t> bytes) {
  if (bytes.size() < kCpuMapDataOffset) return std::nullopt;
  RecordHeader h = load<RecordHeader>(bytes.data());
  if (h.type != kCpuMap) return std::nullopt;
  CpuMapView v{load<uint16_t>(bytes.data() + sizeof(RecordHeader)), bytes.subspan(kCpuMapDataOffset)};
  if (v.type > kCpuMapRange) return std::nullopt;
  return v;
}

std::vector<int> CpuMapView::cpus() const {
  std::vector<int> out;
  auto u16 = [&](size_t at) { return at + 2 <= data.size() ? load<uint16_t>(data.data() + at) : 0; };
  if (type == kCpuMapCpus) {
    size_t n = std::min<size_t>(u16(0), data.size() >= 2 ? (data.size() - 2) / 2 : 0);
    for (size_t i = 0; i < n; ++i) {
      uint16_t c = u16(2 + 2 * i);
      out.push_back(c == 0xffff ? -1 : c);
    }
  } else if (type == kCpuMapMask) {
    size_t words = u16(0), long_size = u16(2);
    size_t at = long_size == 8 ? 8 : 4;  // 64-bit masks are 8-aligned after the type
    if (long_size != 4 && long_size != 8) return out;
    for (size_t w = 0; w < words && at + (w + 1) * long_size <= data.size(); ++w) {
      uint64_t bits = long_size == 8 ? load<uint64_t>(data.data() + at + w * 8) : load<uint32_t>(data.data() + at + w * 4);
      for (size_t b = 0; b < long_size * 8; ++b)
        if (bits >> b & 1) out.push_back(static_cast<int>(w * long_size * 8 + b));
    }
  } else if (data.size() >= 6) {
    if (data[0]) out.push_back(-1);  // any_cpu
    for (int c = u16(2); c <= u16(4); ++c) out.push_back(c);
  }
  return out;
}

std::optional<StatConfigView> StatConfigView::parse(std::span<const uint8_t> bytes) {
  auto e = counted_entries<StatConfigFixed, StatConfigTerm>(bytes, kStatConfig);
  if (!e) return std::nullopt;
  return StatConfigView{*e};
}

StatConfigTerm StatConfigView::term(size_t i) const {
  return load<StatConfigTerm>(terms.data() + i * sizeof(StatConfigTerm));
}

std::optional<StatView> StatView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  StatView v;
  if (!read_fixed(r, kStat, v.rec)) return std::nullopt;
  return v;
}

std::optional<StatRoundView> StatRoundView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  StatRoundView v;
  if (!read_fixed(r, kStatRound, v.rec)) return std::nullopt;
  return v;
}

std::optional<TracingDataView> TracingDataView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  RecordHeader h;
  uint32_t size;
  if (!r.read(h) || h.type != kHeaderTracingData || !r.read(size)) return std::nullopt;
  return TracingDataView{size};
}

std::optional<AuxtraceView> AuxtraceView::parse(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  AuxtraceFixed f;
  if (!read_fixed(r, kAuxtrace, f)) return std::nullopt;
  return AuxtraceView{f.size};
}

RecordBuilder build_mmap2(const Mmap2View& m) {
  Mmap2Fixed f{};
  f.header = {kMmap2, static_cast<uint16_t>(m.misc & ~kMiscMmapBuildId), 0};
  f.pid = m.pid, f.tid = m.tid;
  f.addr = m.addr, f.len = m.len, f.pgoff = m.pgoff;
  f.inode.maj = m.maj, f.inode.min = m.min;
  f.inode.ino = m.ino, f.inode.ino_generation = m.ino_generation;
  f.prot = m.prot, f.flags = m.flags;
  if (!m.build_id.empty()) set_mmap2_build_id(f, m.build_id);
  RecordBuilder b(kMmap2, f.header.misc);
  b.raw().clear();  // the struct carries the header
  b.put(f);
  b.put_cstring(m.filename, 8);
  return b;
}

RecordBuilder build_mmap(const MmapView& m) {
  RecordBuilder b(kMmap, m.misc);
  b.put(m.pid).put(m.tid).put(m.addr).put(m.len).put(m.pgoff);
  b.put_cstring(m.filename, 8);
  return b;
}

RecordBuilder build_comm(const CommView& c) {
  RecordBuilder b(kComm, c.misc);
  b.put(c.pid).put(c.tid);
  b.put_cstring(c.comm, 8);
  return b;
}

namespace {
RecordBuilder build_fork_exit(uint32_t type, const ForkExitView& f) {
  RecordBuilder b(type, f.misc);
  b.put(f.pid).put(f.ppid).put(f.tid).put(f.ptid).put(f.time);
  return b;
}
}  // namespace

RecordBuilder build_fork(const ForkExitView& f) { return build_fork_exit(kFork, f); }
RecordBuilder build_exit(const ForkExitView& f) { return build_fork_exit(kExit, f); }

RecordBuilder build_lost(const LostView& l) {
  RecordBuilder b(kLost, 0);
  b.put(l.id).put(l.lost);
  return b;
}

RecordBuilder build_header_build_id(const HeaderBuildIdView& v, size_t name_align, uint32_t type) {
  BuildIdRecordFixed f{};
  f.header = {type, static_cast<uint16_t>(v.misc | kMiscBuildIdSize), 0};
  f.pid = v.pid;
  f.size = static_cast<uint8_t>(clamp_build_id_size(v.build_id.size()));
  if (f.size) std::memcpy(f.build_id, v.build_id.data(), f.size);
  RecordBuilder b(type, f.header.misc);
  b.raw().clear();  // the struct carries the header
  b.put(f);
  b.put_cstring(v.filename, name_align);
  return b;
}

size_t build_lost_samples(std::span<uint8_t> out, uint64_t lost, std::span<const uint8_t> sample_id) {
  const size_t size = sizeof(LostSamples) + sample_id.size();
  if (size > out.size() || size > 0xffff) return 0;
  LostSamples ls{};
  ls.header = {kLostSamples, 0, static_cast<uint16_t>(size)};
  ls.lost = lost;
  std::memcpy(out.data(), &ls, sizeof ls);
  if (!sample_id.empty()) std::memcpy(out.data() + sizeof ls, sample_id.data(), sample_id.size());
  return size;
}

bool patch_mmap2_build_id(std::span<uint8_t> rec, std::span<const uint8_t> id) {
  Mmap2Fixed m;
  if (rec.size() < sizeof m) return false;
  std::memcpy(&m, rec.data(), sizeof m);
  if (m.header.type != kMmap2) return false;
  set_mmap2_build_id(m, id);
  std::memcpy(rec.data(), &m, sizeof m);
  return true;
}

bool clear_mmap2_build_id_bit(std::span<uint8_t> rec) {
  RecordHeader h;
  if (rec.size() < sizeof h) return false;
  std::memcpy(&h, rec.data(), sizeof h);
  if (h.type != kMmap2) return false;
  h.misc = static_cast<uint16_t>(h.misc & ~kMiscMmapBuildId);
  std::memcpy(rec.data(), &h, sizeof h);
  return true;
}

}  // namespace sonde::format
