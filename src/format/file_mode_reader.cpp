#include "format/file_mode_reader.h"

#include <bit>
#include <cstring>
#include <vector>

#include "format/record_builder.h"
#include "format/record_framing.h"
#include "util/byte_reader.h"
#include "util/error.h"

namespace sonde::format {

namespace {

// perf 6.1 reads attrs of at least VER0 (64 bytes); attr.size 0 means VER0.
constexpr uint32_t kAttrSizeVer0 = 64;

class FileModeReader : public RecordReader {
 public:
  FileModeReader(std::unique_ptr<ByteSource> src, const std::string& name) : src_(std::move(src)), name_(name) {
    file_ = src_->whole();
    input_size_ = file_.size();
    file_mode_ = true;
    if (file_.size() < kFileHeaderSize)
      throw_runtime("{} is not a complete perf.data file: {} bytes, shorter than its {}-byte header", name_,
                    file_.size(), kFileHeaderSize);
    std::memcpy(&hdr_, file_.data(), sizeof hdr_);
    file_header_.data_offset = hdr_.data.offset;
    file_header_.data_size = hdr_.data.size;
    std::memcpy(file_header_.features, hdr_.features, sizeof hdr_.features);
    setup_data();
    read_attrs();
    if (features_present_) read_features();
    position_ = data_pos_;
  }

  bool next(RecordView& out) override {
    if (next_synth_ < synth_.size()) {
      const Synth& s = synth_[next_synth_++];
      out.bytes = {synth_bytes_.data() + s.begin, s.size};
      out.header = load<RecordHeader>(out.bytes.data());
      out.trailing = s.trailing;
      out.offset = s.file_offset;
      return true;
    }
    if (done_) return false;
    // The data section, straight from the mapping: nothing is copied.
    const uint64_t left = data_end_ - data_pos_;
    if (left < sizeof(RecordHeader)) return stop_at_end();
    const uint8_t* p = file_.data() + data_pos_;
    RecordHeader h = load<RecordHeader>(p);
    if (h.size < sizeof(RecordHeader)) {
      error_ = fmt::format("bad record header size {} at offset {:#x}", h.size, data_pos_);
      done_ = true;
      return false;
    }
    if (h.size > left) return stop_at_end();
    uint64_t extra = trailing_size(h, p);
    if (extra > kMaxTrailingSize) {
      error_ = fmt::format("record at offset {:#x} claims {} trailing bytes", data_pos_, extra);
      done_ = true;
      return false;
    }
    if (extra > left - h.size) return stop_at_end();
    out.header = h;
    out.offset = data_pos_;
    out.bytes = {p, h.size};
    out.trailing = {p + h.size, static_cast<size_t>(extra)};
    data_pos_ += h.size + extra;
    src_->release_before(data_pos_ - h.size - extra);  // keep the returned record mapped
    position_ = data_pos_;
    if (!is_known_record_type(h.type)) ++unknown_records_;
    return true;
  }

 private:
  struct Synth {
    size_t begin = 0;  // into synth_bytes_
    size_t size = 0;
    std::span<const uint8_t> trailing;
    uint64_t file_offset = 0;  // where its source bytes are in the file
  };

  // The bytes of `sec` inside the file, or a one-line error naming it.
  std::span<const uint8_t> section(const FileSection& sec, std::string_view what) const {
    const uint64_t fsize = file_.size();
    if (sec.offset > fsize || sec.size > fsize - sec.offset)
      throw_runtime("{}: corrupt perf.data: the {} at offset {} (size {}) lies past the end of the file ({} bytes)",
                    name_, what, sec.offset, sec.size, fsize);
    return file_.subspan(static_cast<size_t>(sec.offset), static_cast<size_t>(sec.size));
  }

  void setup_data() {
    const uint64_t fsize = file_.size();
    if (hdr_.data.offset > fsize)
      throw_runtime("{}: corrupt perf.data: the data section at offset {} lies past the end of the file ({} bytes)",
                    name_, hdr_.data.offset, fsize);
    if (hdr_.data.offset < kFileHeaderSize)
      throw_runtime("{}: corrupt perf.data: the data section at offset {} overlaps the file header", name_,
                    hdr_.data.offset);
    if (hdr_.data.size > UINT64_MAX - hdr_.data.offset)
      throw_runtime("{}: corrupt perf.data: the data section at offset {} has an impossible size {}", name_,
                    hdr_.data.offset, hdr_.data.size);
    data_pos_ = hdr_.data.offset;
    if (hdr_.data.size == 0) {
      // perf record writes the final header only when it exits; a killed
      // recorder leaves data.size 0 with the records (and no feature table)
      // running to the end of the file. perf reads it the same way.
      data_end_ = fsize;
      declared_end_ = fsize;
      features_present_ = false;
    } else if (hdr_.data.size > fsize - hdr_.data.offset) {
      // The file was cut inside the data section: read what is complete.
      data_end_ = fsize;
      declared_end_ = hdr_.data.offset + hdr_.data.size;
      features_present_ = false;
    } else {
      data_end_ = hdr_.data.offset + hdr_.data.size;
      declared_end_ = data_end_;
      features_present_ = true;
    }
  }

  size_t begin_synth() const { return synth_bytes_.size(); }
  void end_synth(size_t begin, uint64_t file_offset, std::span<const uint8_t> trailing = {}) {
    synth_.push_back({begin, synth_bytes_.size() - begin, trailing, file_offset});
  }
  void append(const RecordBuilder& b) { synth_bytes_.insert(synth_bytes_.end(), b.bytes().begin(), b.bytes().end()); }

  void read_attrs() {
    if (hdr_.attrs.size == 0) return;
    if (hdr_.attr_size < kAttrSizeVer0 + sizeof(FileSection) || hdr_.attr_size > 4096)
      throw_runtime("{}: corrupt perf.data: attr entry size {} is not plausible", name_, hdr_.attr_size);
    auto attrs = section(hdr_.attrs, "attribute section");
    const uint64_t nr = hdr_.attrs.size / hdr_.attr_size;
    // Like perf's read_attr: each entry is attr.size bytes of attr, then the
    // FileSection of its ids; entries follow one another.
    ByteReader r(attrs);
    for (uint64_t i = 0; i < nr; ++i) {
      const uint64_t entry_offset = hdr_.attrs.offset + r.offset();
      if (r.remaining() < 8) throw_runtime("{}: corrupt perf.data: attribute {} is cut short", name_, i);
      uint32_t asz = load<uint32_t>(r.pos() + 4);
      if (asz == 0) asz = kAttrSizeVer0;
      if (asz < kAttrSizeVer0 || asz + sizeof(FileSection) > hdr_.attr_size)
        throw_runtime("{}: corrupt perf.data: attribute {} has size {} in entries of {} bytes", name_, i, asz,
                      hdr_.attr_size);
      std::span<const uint8_t> attr_bytes;
      FileSection ids{};
      if (!r.bytes(asz, attr_bytes) || !r.read(ids))
        throw_runtime("{}: corrupt perf.data: attribute {} is cut short", name_, i);
      auto id_bytes = section(ids, fmt::format("id list of attribute {}", i));
      const size_t nr_ids = id_bytes.size() / 8;
      count_ids(i, id_bytes.size());
      if (sizeof(RecordHeader) + asz + nr_ids * 8 > 0xffff)
        throw_runtime("{}: attribute {} has {} ids, more than one HEADER_ATTR record can hold", name_, i, nr_ids);
      RecordBuilder b(kHeaderAttr, 0);
      b.put_bytes(attr_bytes);
      // attr.size 0 (VER0) is spelled out so readers know where the ids start.
      uint32_t real_size = asz;
      std::memcpy(b.raw().data() + sizeof(RecordHeader) + 4, &real_size, sizeof real_size);
      b.put_bytes(id_bytes.first(nr_ids * 8));
      b.finish();
      size_t at = begin_synth();
      append(b);
      end_synth(at, entry_offset);
    }
  }

  // Entries may point at one shared id list; each would become its own copy
  // (and Session copies them again): entries x ids from a small file. All the
  // id lists together may be no larger than the file that carries them.
  void count_ids(uint64_t attr, uint64_t bytes) {
    id_bytes_total_ += bytes;
    if (id_bytes_total_ > file_.size())
      throw_runtime("{}: corrupt perf.data: the id lists of attributes 0 to {} add up to {} bytes, more than the "
                    "file's {} bytes (entries share one list)",
                    name_, attr, id_bytes_total_, file_.size());
  }

  void read_features() {
    uint64_t nr_sections = 0;
    for (uint64_t w : hdr_.features) nr_sections += static_cast<uint64_t>(std::popcount(w));
    if (nr_sections == 0) return;
    FileSection table_sec{data_end_, nr_sections * sizeof(FileSection)};
    auto table = section(table_sec, "feature section table");
    ByteReader table_reader(table);
    std::vector<std::pair<uint64_t, std::span<const uint8_t>>> feats;
    for (uint64_t id = 0; id < 256; ++id) {
      if (!((hdr_.features[id / 64] >> (id % 64)) & 1)) continue;
      FileSection sec{};
      table_reader.read(sec);  // sized above: cannot fail
      auto bytes = section(sec, fmt::format("section of feature {}", id));
      if (id == 0 || id >= kFeatLast) {
        ++unknown_records_;  // a feature perf 6.1 does not know: skipped, counted
        continue;
      }
      feats.emplace_back(id, bytes);
      feature_offsets_[id] = sec.offset;
    }
    for (auto& [id, bytes] : feats) {
      if (id == kFeatTracingData || id == kFeatBuildId) continue;
      // Pipe mode carries each feature in a u16-sized record; a section that
      // cannot fit is left out rather than split into something perf never
      // wrote (in practice only huge CMDLINE/EVENT_DESC lists come close).
      if (sizeof(FeatureFixed) + bytes.size() > 0xffff) continue;
      RecordBuilder b(kHeaderFeature, 0);
      b.put(id).put_bytes(bytes);
      b.finish();
      size_t at = begin_synth();
      append(b);
      end_synth(at, feature_offsets_[id]);
    }
    // The end marker, as in a pipe stream.
    RecordBuilder end(kHeaderFeature, 0);
    end.put(static_cast<uint64_t>(kFeatLast));
    end.finish();
    size_t at = begin_synth();
    append(end);
    end_synth(at, table_sec.offset);
    for (auto& [id, bytes] : feats) {
      if (id == kFeatTracingData) add_tracing_data(bytes, feature_offsets_[id]);
      if (id == kFeatBuildId) add_build_ids(bytes, feature_offsets_[id]);
    }
  }

  void add_tracing_data(std::span<const uint8_t> blob, uint64_t offset) {
    if (blob.size() > UINT32_MAX) return;
    RecordBuilder b(kHeaderTracingData, 0);
    b.put(static_cast<uint32_t>(blob.size())).put(uint32_t{0});
    b.finish();
    size_t at = begin_synth();
    append(b);
    end_synth(at, offset, blob);
  }

  // The BUILD_ID feature is a run of perf_record_header_build_id entries
  // (header with type 0, pid, build_id[20], size, filename padded to 64);
  // each becomes a HEADER_BUILD_ID record. A malformed entry ends the table:
  // the entries before it are still good.
  void add_build_ids(std::span<const uint8_t> table, uint64_t offset) {
    ByteReader r(table);
    while (r.remaining() >= sizeof(RecordHeader)) {
      const uint64_t entry_offset = offset + r.offset();
      RecordHeader h = load<RecordHeader>(r.pos());
      std::span<const uint8_t> entry;
      if (h.size < sizeof(BuildIdRecordFixed) || !r.bytes(h.size, entry)) break;
      size_t at = begin_synth();
      synth_bytes_.insert(synth_bytes_.end(), entry.begin(), entry.end());
      uint32_t type = kHeaderBuildId;
      std::memcpy(synth_bytes_.data() + at, &type, sizeof type);
      end_synth(at, entry_offset);
    }
  }

  bool stop_at_end() {
    // What the header promised but no complete record delivered.
    truncated_bytes_ = declared_end_ - data_pos_;
    position_ = data_end_;
    done_ = true;
    return false;
  }

  std::unique_ptr<ByteSource> src_;
  std::string name_;
  std::span<const uint8_t> file_;
  FileHeader hdr_{};
  uint64_t data_pos_ = 0, data_end_ = 0, declared_end_ = 0;
  uint64_t id_bytes_total_ = 0;  // of every attr's id list so far
  bool features_present_ = false;
  bool done_ = false;
  std::vector<uint8_t> synth_bytes_;
  std::vector<Synth> synth_;
  size_t next_synth_ = 0;
  uint64_t feature_offsets_[kFeatLast] = {};
};

}  // namespace

std::unique_ptr<RecordReader> open_file_mode(std::unique_ptr<ByteSource> src, const std::string& name) {
  if (src->whole().empty())
    throw_runtime("{} is a file-mode perf.data, which needs random access: pass the file itself, not a pipe", name);
  return std::make_unique<FileModeReader>(std::move(src), name);
}

}  // namespace sonde::format
