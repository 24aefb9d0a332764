// What a reader learns from a stream's metadata records (attrs, event names,
// features, tracing data) and the decoding that depends on it: which event a
// record belongs to, how its sample or sample_id trailer is laid out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/event_kind.h"
#include "format/perf_abi.h"
#include "format/sample.h"
#include "format/stream_reader.h"

namespace sonde::format {

struct EventInfo {
  perf_event_attr attr{};
  std::vector<uint64_t> ids;
  std::string name;
  size_t index = 0;
  EventKind kind = EventKind::kCount;  // from attr and name, set with either (event_kind.h)
};

// Byte offset, in the body of a SAMPLE (after its header), of the fixed u64
// field `field` (PERF_SAMPLE_IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID,
// CPU or PERIOD) for `sample_type`; -1 when such samples do not carry it.
int sample_field_offset(uint64_t sample_type, uint64_t field);

// Decodes the body of a SAMPLE of an event with `attr` into `out` (every
// field but `event` and `misc`): Session::decode_sample once it has found
// the event, and code that holds the attr itself (the SDT extension
// renaming its samples in place). false (with *why set) if malformed.
bool decode_sample_body(const perf_event_attr& attr, std::span<const uint8_t> body, Sample& out,
                        std::string* why = nullptr);

// Only the fixed fields (IDENTIFIER ... PERIOD) of a SAMPLE's body: false
// when it is shorter than they are.
bool decode_sample_fixed(uint64_t sample_type, std::span<const uint8_t> body, Sample& out);

class Session {
 public:
  // Takes what it needs from a metadata record. Returns true if the record
  // was metadata (attr, feature, event update, tracing data, build-id).
  bool observe(const RecordView& rec);

  // Decodes a SAMPLE record. false (with *why set) if it is malformed or
  // names an event the stream never described.
  bool decode_sample(const RecordView& rec, Sample& out, std::string* why = nullptr) const;
  // The TIME field of a SAMPLE record (0 if it has none or is malformed),
  // without decoding the rest: the walker orders every record by it.
  uint64_t sample_time(const RecordView& rec) const;
  // Decodes the sample_id trailer of a non-sample kernel record.
  bool decode_sample_id(const RecordView& rec, SampleId& out) const;

  const std::vector<EventInfo>& events() const { return events_; }
  const EventInfo* event_for_id(uint64_t id) const;

  std::span<const uint8_t> feature(FeatureId id) const;
  std::optional<std::string> feature_string(FeatureId id) const;
  std::optional<std::vector<std::string>> feature_string_list(FeatureId id) const;
  std::span<const uint8_t> tracing_data() const { return tracing_data_; }

 private:
  // The event a SAMPLE body belongs to (by its id when there are several);
  // nullptr (and *why) when it names none.
  const EventInfo* sample_event(std::span<const uint8_t> body, std::string* why) const;
  void add_attr(const RecordView& rec);
  // Sets an event's name and, with it, its kind.
  static void name_event(EventInfo& ev, std::string name);
  void recompute_layout();

  std::vector<EventInfo> events_;
  std::unordered_map<uint64_t, size_t> id_to_event_;
  std::map<uint64_t, std::vector<uint8_t>> features_;
  std::vector<uint8_t> tracing_data_;
  std::map<uint64_t, std::string> pending_names_;  // EVENT_UPDATE before its attr
  // Layout from the first attr, as perf does.
  uint64_t sample_type_ = 0;
  size_t id_hdr_size_ = 0;
  int sample_id_pos_ = -1;  // u64 index of the id in a sample, -1 none
  int trailer_id_pos_ = -1;  // u64 index from the end of a trailer, -1 none
};

}  // namespace sonde::format
