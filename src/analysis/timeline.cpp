#include "analysis/timeline.h"

#include <algorithm>

#include "format/event_kind.h"
#include "format/records.h"

namespace sonde::analysis {

void TimelineCollector::on_kept_sample(const format::Sample& s, uint32_t aggregate) {
  aggregate_.push_back(aggregate);
  time_.push_back(s.time);
  period_.push_back(s.period);
  if (format::is_offcpu(s.event->kind)) {
    if (t_.offcpu.size() < Timeline::kMaxSpans)
      t_.offcpu.push_back({s.time, s.period, aggregate});
    else
      ++t_.spans_dropped;
    return;
  }
  // sonde records SDT probe hits as bpf-output samples (docs/sdt.md).
  if (s.event->attr.type != PERF_TYPE_SOFTWARE || s.event->attr.config != PERF_COUNT_SW_BPF_OUTPUT) return;
  text_.clear();
  if (marker_text_ && !marker_text_(s, text_)) text_.clear();
  if (t_.markers.size() < Timeline::kMaxMarkers)
    t_.markers.push_back({s.time, aggregate, text_});
  else
    ++t_.markers_dropped;
}

void TimelineCollector::on_record(const format::RecordView& r, const format::Session& session) {
  // As RecordingWalker counts them: LOST_SAMPLES when the recording has
  // any, else LOST (both are written for one loss).
  format::SampleId id;
  if (r.header.type == format::kLostSamples) {
    auto l = format::LostSamplesView::parse(r.bytes);
    if (!l || !session.decode_sample_id(r, id)) return;
    saw_lost_samples_ = true;
    t_.losses.push_back({id.time, l->lost});
  } else if (r.header.type == format::kLost) {
    auto l = format::LostView::parse(r.bytes);
    if (!l || !session.decode_sample_id(r, id)) return;
    lost_records_.push_back({id.time, l->lost});
  }
}

Timeline TimelineCollector::finish() {
  Timeline t = std::move(t_);
  if (!saw_lost_samples_) t.losses = std::move(lost_records_);
  uint64_t first = UINT64_MAX, last = 0;
  for (uint64_t time : time_)
    if (time) first = std::min(first, time), last = std::max(last, time);
  if (first == UINT64_MAX) first = last = 0;
  t.first = first, t.last = last;
  const uint64_t span = last - first + 1;
  t.bin_ns = std::max(Timeline::kMinBinNs, (span + Timeline::kMaxBins - 1) / Timeline::kMaxBins);
  t.bins = static_cast<uint32_t>((span + t.bin_ns - 1) / t.bin_ns);
  // (bin, aggregate) keys, sorted, then runs become rows.
  std::vector<uint64_t> keys(time_.size());
  for (size_t i = 0; i < time_.size(); ++i) {
    uint64_t bin = time_[i] > first ? (time_[i] - first) / t.bin_ns : 0;
    keys[i] = (bin << 32) | aggregate_[i];
  }
  std::vector<uint32_t> order(keys.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  for (uint32_t i : order) {
    uint32_t bin = static_cast<uint32_t>(keys[i] >> 32), agg = aggregate_[i];
    if (t.rows.empty() || t.rows.back().bin != bin || t.rows.back().aggregate != agg) t.rows.push_back({agg, bin, 0, 0});
    t.rows.back().count += 1;
    t.rows.back().period += period_[i];
  }
  return t;
}

}  // namespace sonde::analysis
