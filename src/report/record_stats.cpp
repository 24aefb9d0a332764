#include "report/record_stats.h"

#include <fmt/format.h>

#include "format/perf_abi.h"
#include "format/record_names.h"
#include "format/session.h"
#include "format/records.h"

namespace sonde::report {

using namespace sonde::format;

RecordStats count_records(RecordReader& reader) {
  RecordStats st;
  Session session;
  RecordView rec;
  Sample sample;
  SampleId id;
  auto event_stats = [&](const EventInfo* e) -> EventRecordStats* {
    if (!e) return nullptr;
    while (st.events.size() <= e->index) st.events.emplace_back();
    st.events[e->index].name = e->name;
    return &st.events[e->index];
  };
  while (reader.next(rec)) {
    const uint32_t type = rec.header.type;
    // In file mode the reader makes these from the header's sections.
    const bool from_header = reader.file_mode() && (type == kHeaderAttr || type == kHeaderFeature ||
                                                    type == kHeaderTracingData || type == kHeaderBuildId);
    session.observe(rec);
    if (from_header) continue;
    if (type < std::size(st.by_type)) ++st.by_type[type];
    ++st.total;
    if (type == kSample && session.decode_sample(rec, sample)) {
      if (auto* e = event_stats(sample.event)) ++e->samples;
    } else if (auto lost = type == kLostSamples ? LostSamplesView::parse(rec.bytes) : std::nullopt) {
      session.decode_sample_id(rec, id);
      const EventInfo* e = id.id ? session.event_for_id(id.id) : nullptr;
      if (!e && !session.events().empty()) e = &session.events().front();
      if (auto* es = event_stats(e)) es->lost_samples += lost->lost;
    }
  }
  for (const auto& e : session.events()) event_stats(&e);  // every event, in order
  // A COMPRESSED record is one more record, beside those it holds.
  st.by_type[kCompressed] += reader.compressed_records();
  st.total += reader.compressed_records();
  st.stop_error = reader.error();
  return st;
}

std::string format_record_stats(const RecordStats& st) {
  std::string out = "\nAggregated stats:\n";
  out += fmt::format("{:>16} events: {:>10}\n", "TOTAL", st.total);
  for (uint32_t type = 1; type < std::size(st.by_type); ++type) {
    if (!st.by_type[type]) continue;
    const std::string_view name = record_type_name(type);
    if (name == "UNKNOWN") continue;
    out += fmt::format("{:>16} events: {:>10}  ({:4.1f}%)\n", name, st.by_type[type],
                       100.0 * double(st.by_type[type]) / double(st.total));
  }
  for (const auto& e : st.events) {
    if (!e.samples && !e.lost_samples) continue;
    out += fmt::format("{} stats:\n", e.name);
    if (e.samples) out += fmt::format("{:>16} events: {:>10}\n", "SAMPLE", e.samples);
    if (e.lost_samples) out += fmt::format("{:>16} events: {:>10}\n", "LOST_SAMPLES", e.lost_samples);
  }
  return out;
}

}  // namespace sonde::report
