// One typed view per perf record kind, and the builders for the kinds sonde
// writes: the one place where a record's fields are read or laid out by
// offset. Everything else switches on the header type and asks here.
//
// Parsing is bounded: View::parse(bytes) reads only the bytes it is given
// (the whole record, header included), returns nullopt when they are shorter
// than the kind's fixed part or carry another type, and never follows a
// length field past them. Views copy the fixed fields and point into the
// record for the rest (filename, build id, payload), so they live as long as
// the record bytes do and parsing never allocates (the recorder and the
// report's walker parse every record).
//
// A record's text (filename, comm) runs to its first NUL inside the record;
// without one it runs to the record's end and *_terminated is false. Readers
// that need a well-formed string check that flag.
//
// Not here, by design:
// - SAMPLE: its layout depends on the event's attr, so format::Session decodes
//   it (Session::decode_sample into format/sample.h's Sample); the sample_id
//   trailer of other records likewise (Session::decode_sample_id).
// - HEADER_ATTR's attr: format/attr_sizes.h's read_attr, which HeaderAttrView
//   uses.
// - THROTTLE/UNTHROTTLE: sonde copies them and reads none of their fields.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/perf_abi.h"
#include "format/record_builder.h"

namespace sonde::format {

// MMAP2 (10), in either form: the inode (maj, min, ino, ino_generation) or,
// with misc bit kMiscMmapBuildId, the build id (1 to 20 bytes, reserved
// bytes zero). A record with the bit but not that shape is the inode form
// with a bit the kernel leaked: parse() reads it so and clears the bit in
// `misc`.
struct Mmap2View {
  uint16_t misc = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;  // the inode form only
  uint64_t ino = 0, ino_generation = 0;
  std::span<const uint8_t> build_id;  // the build-id form only
  uint32_t prot = 0, flags = 0;
  std::string_view filename;
  bool filename_terminated = false;

  bool has_build_id() const { return (misc & kMiscMmapBuildId) != 0; }
  static std::optional<Mmap2View> parse(std::span<const uint8_t> bytes);
};

// MMAP (1): no prot, no inode; data maps carry kMiscMmapData.
struct MmapView {
  uint16_t misc = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t addr = 0, len = 0, pgoff = 0;
  std::string_view filename;
  bool filename_terminated = false;

  static std::optional<MmapView> parse(std::span<const uint8_t> bytes);
};

// COMM (3); kMiscCommExec marks the comm an exec set.
struct CommView {
  uint16_t misc = 0;
  uint32_t pid = 0, tid = 0;
  std::string_view comm;
  bool comm_terminated = false;

  bool exec() const { return (misc & kMiscCommExec) != 0; }
  static std::optional<CommView> parse(std::span<const uint8_t> bytes);
};

// FORK (7) and EXIT (4): one layout; parse accepts either type.
struct ForkExitView {
  uint16_t misc = 0;
  uint32_t pid = 0, ppid = 0;
  uint32_t tid = 0, ptid = 0;
  uint64_t time = 0;

  static std::optional<ForkExitView> parse(std::span<const uint8_t> bytes);
};

// KSYMBOL (17): a kernel symbol registered or unregistered at run time.
struct KsymbolView {
  uint64_t addr = 0;
  uint32_t len = 0;
  uint16_t ksym_type = 0, flags = 0;
  std::string_view name;
  bool name_terminated = false;

  static std::optional<KsymbolView> parse(std::span<const uint8_t> bytes);
};

// BPF_EVENT (18): a BPF program loaded or unloaded.
struct BpfEventView {
  uint16_t type = 0, flags = 0;
  uint32_t id = 0;

  static std::optional<BpfEventView> parse(std::span<const uint8_t> bytes);
};

// The thread a side-band record is about (MMAP, MMAP2, COMM: its own;
// FORK, EXIT: the child), for perf script's side-band lines. nullopt for
// another kind, or a record shorter than its fixed part.
struct RecordThread {
  uint32_t pid = 0, tid = 0;
};
std::optional<RecordThread> record_thread(std::span<const uint8_t> bytes);

// Records perf writes about the recording itself (file mode): ID_INDEX
// (69), THREAD_MAP (73) and CPU_MAP (74). Entries are read as far as whole
// ones remain; `nr` is what the record claims.
struct IdIndexView {
  struct Entry {
    uint64_t id = 0, idx = 0, cpu = 0, tid = 0;
  };
  uint64_t nr = 0;
  std::span<const uint8_t> entries;  // whole 32-byte entries, unaligned

  size_t count() const { return entries.size() / 32; }
  Entry entry(size_t i) const;
  static std::optional<IdIndexView> parse(std::span<const uint8_t> bytes);
};
// LOST (2): the kernel dropped `lost` records of the event `id`.
struct LostView {
  uint64_t id = 0;
  uint64_t lost = 0;

  static std::optional<LostView> parse(std::span<const uint8_t> bytes);
};

// READ (8): one counter's value for one thread, as an event with
// inherit_stat (perf record -s) leaves it when an inherited thread exits.
// The values are laid out as `read_format` (the event's attr) says: count,
// [time enabled], [time running], [id], [lost]. A group read
// (PERF_FORMAT_GROUP) is not read: parse() returns nullopt.
struct ReadView {
  uint32_t pid = 0, tid = 0;
  uint64_t value = 0, enabled = 0, running = 0;
  std::optional<uint64_t> id;  // with PERF_FORMAT_ID

  static std::optional<ReadView> parse(std::span<const uint8_t> bytes, uint64_t read_format);
};

// LOST_SAMPLES (13).
struct LostSamplesView {
  uint64_t lost = 0;

  static std::optional<LostSamplesView> parse(std::span<const uint8_t> bytes);
};

// HEADER_BUILD_ID (67). The id is what perf takes it to be: with misc bit
// kMiscBuildIdSize, the size field's bytes (clamped to 20); without it, the
// 20 bytes less their trailing zeros (older perfs wrote no size).
struct HeaderBuildIdView {
  uint16_t misc = 0;
  int32_t pid = 0;
  std::span<const uint8_t> build_id;
  std::string_view filename;
  bool filename_terminated = false;

  static std::optional<HeaderBuildIdView> parse(std::span<const uint8_t> bytes);
};

// HEADER_ATTR (64): an attr of any size (attr_sizes.h), then the ids of the
// event's instances (u64 each; a partial one at the end is ignored).
struct HeaderAttrView {
  perf_event_attr attr{};
  std::span<const uint8_t> ids;  // unaligned: read through id()

  size_t id_count() const { return ids.size() / 8; }
  uint64_t id(size_t i) const;
  // *why (optional) says what is wrong with a bad attr, in one line.
  static std::optional<HeaderAttrView> parse(std::span<const uint8_t> bytes, std::string* why = nullptr);
};

// HEADER_FEATURE (80): one feature section of pipe mode.
struct FeatureView {
  uint64_t feat_id = 0;
  std::span<const uint8_t> payload;

  static std::optional<FeatureView> parse(std::span<const uint8_t> bytes);
};

// EVENT_UPDATE (78). Only the name form (kEventUpdateName) is read.
struct EventUpdateView {
  uint64_t type = 0;
  uint64_t id = 0;
  std::span<const uint8_t> payload;

  // The NUL-terminated name of the name form; nullopt for another form or
  // a name without its NUL.
  std::optional<std::string_view> name() const;
  // The name form's text up to its NUL or the record's end (perf -D's);
  // nullopt for another form.
  std::optional<std::string_view> name_text() const;
  // The unit form's NUL-terminated text (kEventUpdateUnit; "msec").
  std::optional<std::string_view> unit() const;
  // The scale form's double (kEventUpdateScale).
  std::optional<double> scale() const;
  static std::optional<EventUpdateView> parse(std::span<const uint8_t> bytes);
};

// THREAD_MAP (73): the entries the record holds (at most `nr`).
struct ThreadMapView {
  std::span<const uint8_t> entries;  // unaligned: read through entry()
  size_t count() const { return entries.size() / sizeof(ThreadMapEntry); }
  // pid (-1: every thread) and comm (to its first NUL, at most 16 bytes).
  ThreadMapEntry entry(size_t i) const;
  static std::optional<ThreadMapView> parse(std::span<const uint8_t> bytes);
};

// CPU_MAP (74) in any of its three forms; cpus() lists the CPU numbers (-1
// for "any CPU"). nullopt from parse for an unknown form or one whose
// counts run past the record.
struct CpuMapView {
  uint16_t type = 0;
  std::span<const uint8_t> data;  // after the type
  std::vector<int> cpus() const;
  static std::optional<CpuMapView> parse(std::span<const uint8_t> bytes);
};

// STAT_CONFIG (75): the terms the record holds (at most `nr`).
struct StatConfigView {
  std::span<const uint8_t> terms;
  size_t count() const { return terms.size() / sizeof(StatConfigTerm); }
  StatConfigTerm term(size_t i) const;
  static std::optional<StatConfigView> parse(std::span<const uint8_t> bytes);
};

// STAT (76) and STAT_ROUND (77): fixed layouts, copied.
struct StatView {
  StatRecord rec{};
  static std::optional<StatView> parse(std::span<const uint8_t> bytes);
};
struct StatRoundView {
  StatRoundRecord rec{};
  static std::optional<StatRoundView> parse(std::span<const uint8_t> bytes);
};

// HEADER_TRACING_DATA (66) and AUXTRACE (71): the size of the payload that
// follows the record without being counted by header.size. TRACING_DATA's
// fixed part is read as 12 bytes: its u32 pad is not needed for the size.
struct TracingDataView {
  uint32_t size = 0;
  static std::optional<TracingDataView> parse(std::span<const uint8_t> bytes);
};
struct AuxtraceView {
  uint64_t size = 0;
  static std::optional<AuxtraceView> parse(std::span<const uint8_t> bytes);
};

// Builders. Each returns the record's fields laid out in a RecordBuilder;
// the caller appends the sample_id trailer, if any, and calls finish().
// Text is NUL-terminated and padded to 8, as the kernel writes it.

// The build-id form when m.build_id is not empty (misc bit set, id clamped
// to 20 bytes), the inode form otherwise (misc bit cleared).
RecordBuilder build_mmap2(const Mmap2View& m);
RecordBuilder build_mmap(const MmapView& m);
RecordBuilder build_comm(const CommView& c);
RecordBuilder build_fork(const ForkExitView& f);
RecordBuilder build_exit(const ForkExitView& f);
RecordBuilder build_lost(const LostView& l);
// Always with the size field (misc bit kMiscBuildIdSize), as perf 6.1
// writes it. perf's build-id table (file mode) holds the same entries with
// type 0 and filenames padded to 64.
RecordBuilder build_header_build_id(const HeaderBuildIdView& b, size_t name_align = 8,
                                    uint32_t type = kHeaderBuildId);

// LOST_SAMPLES followed by `sample_id` (a trailer copied from another
// record), laid out in `out` without allocating: the recorder writes one
// after every LOST. Returns the record's size, or 0 when it does not fit in
// `out` or in header.size.
size_t build_lost_samples(std::span<uint8_t> out, uint64_t lost, std::span<const uint8_t> sample_id = {});

// Rewrites an MMAP2 record in place into the build-id form (at most 20
// bytes of `id`). False, and nothing written, when `rec` is shorter than
// MMAP2's fixed part or is not an MMAP2.
bool patch_mmap2_build_id(std::span<uint8_t> rec, std::span<const uint8_t> id);

// Clears an MMAP2's build-id misc bit in place, leaving its payload alone
// (the recorder's repair of the bit the kernel leaks, recorder.cpp). False
// when `rec` is not an MMAP2.
bool clear_mmap2_build_id_bit(std::span<uint8_t> rec);

}  // namespace sonde::format
