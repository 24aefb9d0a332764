#include "format/file_mode_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "format/features.h"
#include "format/records.h"
#include "util/error.h"
#include "util/mapped_path.h"

namespace sonde::format {

namespace {

constexpr size_t kBufferSize = size_t{1} << 20;
// perf pads build-id table filenames to 64 (NAME_ALIGN in header.c).
constexpr size_t kNameAlign = 64;

// Records that describe the recording rather than happen in it: a file keeps
// that knowledge in its header and feature sections, not in the data.
bool is_metadata(uint32_t type) {
  switch (type) {
    case kHeaderAttr:
    case kHeaderEventType:
    case kHeaderTracingData:
    case kHeaderBuildId:
    case kHeaderFeature:
    case kEventUpdate:
    case kIdIndex:     // pipe-mode only; its ids are in the attrs section
    case kCompressed:  // never reaches here: the reader expands it
      return true;
    default:
      return false;
  }
}

// The attr size of the attrs section (one for every entry: readers step by
// it). perf up to 6.2 refuses a file-mode attr larger than its own 128 bytes
// ("file uses a more recent and unsupported ABI"), and a zero field means
// what an absent one does: VER7 unless an attr sets config3, VER8's field.
uint32_t file_attr_size(const std::vector<EventInfo>& events) {
  for (const auto& ev : events)
    if (ev.attr.config3 != 0) return kPerfAttrSizeVer8;
  return kPerfAttrSizeVer7;
}

}  // namespace

FileModeWriter::FileModeWriter(std::string out_path)
    : out_path_(out_path),
      out_(std::move(out_path), {.temp_name = AtomicFile::TempName::Hidden, .remove_on_signal = true}) {
  buf_.reserve(kBufferSize);
  // The header is written last, when its offsets are known.
  buf_.resize(kFileHeaderSize);
}

FileModeWriter::~FileModeWriter() = default;

void FileModeWriter::flush() {
  if (buf_.empty()) return;
  out_.write(buf_.data(), buf_.size());
  file_pos_ += buf_.size();
  buf_.clear();
}

void FileModeWriter::append(const void* p, size_t n) {
  if (buf_.size() + n > kBufferSize) flush();
  if (n > kBufferSize) {
    out_.write(p, n);
    file_pos_ += n;
    return;
  }
  const auto* b = static_cast<const uint8_t*>(p);
  buf_.insert(buf_.end(), b, b + n);
}

void FileModeWriter::note_build_id(uint16_t cpumode, std::string_view name, const uint8_t* id, size_t size) {
  if (size == 0 || name.empty()) return;
  size = std::min(size, kBuildIdMax);
  std::string key(name);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(id), size);
  if (build_ids_.count(key)) return;
  HeaderBuildIdView b;
  b.misc = cpumode;
  b.pid = -1;  // the host machine
  b.build_id = {id, size};
  b.filename = name;
  // The table's entries carry no type (perf leaves it 0).
  RecordBuilder entry = build_header_build_id(b, kNameAlign, 0);
  if (!entry.finish()) return;
  build_ids_.emplace(std::move(key), std::move(entry.raw()));
}

void FileModeWriter::write(const RecordView& rec) {
  const uint32_t type = rec.header.type;
  if (type == kHeaderBuildId) {
    auto b = HeaderBuildIdView::parse(rec.bytes);
    if (b && b->filename_terminated)
      note_build_id(b->misc & kMiscCpumodeMask, b->filename, b->build_id.data(), b->build_id.size());
  } else if (type == kMmap2 && (rec.header.misc & kMiscMmapBuildId)) {
    auto m = Mmap2View::parse(rec.bytes);
    if (m && m->filename_terminated && m->has_build_id()) {
      // perf names the kernel's DSO [kernel.kallsyms], its map [kernel.kallsyms]_text.
      std::string_view name = m->filename;
      if (classify_mapped_path(name) == MappedPath::kKernel) name = "[kernel.kallsyms]";
      note_build_id(m->misc & kMiscCpumodeMask, name, m->build_id.data(), m->build_id.size());
    }
  }
  if (is_metadata(type)) {
    session_.observe(rec);
    return;
  }
  if (rec.bytes.size() != rec.header.size) return;  // not a record this writer can copy faithfully
  if (type == kSample) {
    // SAMPLE_TIME of the samples actually written (pipe streams carry 0, 0).
    Sample s;
    if (session_.decode_sample(rec, s) && s.time != 0) {
      first_time_ = std::min(first_time_, s.time);
      last_time_ = std::max(last_time_, s.time);
    }
  }
  append(rec.bytes.data(), rec.bytes.size());
  if (!rec.trailing.empty()) append(rec.trailing.data(), rec.trailing.size());
  data_size_ += rec.bytes.size() + rec.trailing.size();
}

void FileModeWriter::finish() {
  const uint64_t data_offset = kFileHeaderSize;
  const auto& events = session_.events();
  if (events.empty()) throw_runtime("cannot write {}: the recording describes no events", out_path_);

  // Feature payloads, by id.
  std::map<uint64_t, std::vector<uint8_t>> feats;
  for (uint64_t id = kFeatHostname; id < kFeatLast; ++id) {
    if (id == kFeatEventDesc || id == kFeatCompressed || id == kFeatDirFormat) continue;
    auto f = session_.feature(static_cast<FeatureId>(id));
    if (!f.empty()) feats[id].assign(f.begin(), f.end());
  }
  {
    std::vector<EventDesc> descs;
    for (const auto& ev : events) descs.push_back({ev.attr, ev.name, ev.ids});
    feats[kFeatEventDesc] = encode_event_desc(descs);
  }
  if (last_time_ != 0) {
    FeatureEncoder e;
    e.u64(first_time_).u64(last_time_);
    feats[kFeatSampleTime].assign(e.bytes().begin(), e.bytes().end());
  }
  auto td = session_.tracing_data();
  if (!td.empty()) feats[kFeatTracingData].assign(td.begin(), td.end());
  if (!build_ids_.empty()) {
    auto& table = feats[kFeatBuildId];
    for (const auto& [key, entry] : build_ids_) table.insert(table.end(), entry.begin(), entry.end());
  }

  // Feature table right after the data, then the sections it points to.
  uint64_t pos = data_offset + data_size_;
  uint64_t section_pos = pos + feats.size() * sizeof(FileSection);
  FileHeader h{};
  for (const auto& [id, payload] : feats) {
    FileSection s{section_pos, payload.size()};
    append(&s, sizeof s);
    section_pos += payload.size();
    h.features[id / 64] |= uint64_t{1} << (id % 64);
  }
  for (const auto& [id, payload] : feats) append(payload.data(), payload.size());
  pos = section_pos;

  // Id lists, then the attrs section pointing at them.
  std::vector<FileSection> id_sections;
  for (const auto& ev : events) {
    id_sections.push_back({pos, ev.ids.size() * 8});
    append(ev.ids.data(), ev.ids.size() * 8);
    pos += ev.ids.size() * 8;
  }
  const uint64_t attrs_offset = pos;
  const uint32_t attr_size = file_attr_size(events);
  for (size_t i = 0; i < events.size(); ++i) {
    perf_event_attr a = events[i].attr;
    a.size = attr_size;
    append(&a, attr_size);
    append(&id_sections[i], sizeof(FileSection));
  }
  flush();

  h.magic = kMagic;
  h.size = kFileHeaderSize;
  h.attr_size = attr_size + sizeof(FileSection);
  h.attrs = {attrs_offset, events.size() * h.attr_size};
  h.data = {data_offset, data_size_};
  h.event_types = {0, 0};
  // The header goes last, over the placeholder at offset 0.
  if (::pwrite(out_.fd(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
    throw_runtime("cannot write {}: {}", out_path_, errno_text(errno));
  out_.commit();
  finished_ = true;
}

void write_file_mode(RecordReader& in, const std::string& out_path) {
  FileModeWriter w(out_path);
  RecordView rec;
  while (in.next(rec)) w.write(rec);
  if (!in.error().empty()) throw_runtime("cannot convert the recording: {}", in.error());
  w.finish();
}

}  // namespace sonde::format
