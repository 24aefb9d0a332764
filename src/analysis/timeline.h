// A Profile over time, for the HTML page's timeline: the Profile's samples
// aggregate (event, thread, stack) over the whole recording; a Timeline adds
// which time bin each of them fell in, and keeps what happened at a moment:
// SDT probe hits (markers, with their decoded arguments), off-CPU intervals
// and lost-sample reports.
//
// Bins: the span from the first to the last kept sample is cut into at most
// kMaxBins equal bins (bin_ns = ceil(span / kMaxBins), at least 1 µs), so a
// page of 1M samples holds at most kMaxBins rows per (thread, stack) and a
// selection is always a whole number of bins (docs/export.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format/sample.h"
#include "format/session.h"
#include "format/stream_reader.h"

namespace sonde::analysis {

// (aggregate = index in Profile::samples, bin) with its share of the aggregate.
struct TimelineRow {
  uint32_t aggregate = 0;
  uint32_t bin = 0;
  uint64_t count = 0;
  uint64_t period = 0;
};

// One SDT probe hit.
struct TimelineMarker {
  uint64_t time = 0;
  uint32_t aggregate = 0;  // its Profile sample (event, thread, stack)
  std::string args;        // "arg1=5 arg2=7", as sonde script prints them
};

// One off-CPU sample: the thread was off CPU for `period` ns up to `time`.
struct TimelineSpan {
  uint64_t time = 0;
  uint64_t period = 0;
  uint32_t aggregate = 0;
};

// The kernel's report of lost samples, at the time it could write again.
struct TimelineLoss {
  uint64_t time = 0;
  uint64_t lost = 0;
};

struct Timeline {
  static constexpr uint32_t kMaxBins = 1000;
  static constexpr uint64_t kMinBinNs = 1000;
  static constexpr size_t kMaxMarkers = 200000, kMaxSpans = 200000;

  uint64_t first = 0, last = 0;  // first and last kept sample times
  uint64_t bin_ns = kMinBinNs;
  uint32_t bins = 0;
  std::vector<TimelineRow> rows;  // by bin, then aggregate
  std::vector<TimelineMarker> markers;
  std::vector<TimelineSpan> offcpu;
  std::vector<TimelineLoss> losses;
  size_t markers_dropped = 0, spans_dropped = 0;  // beyond kMaxMarkers / kMaxSpans
};

// Collects a Timeline while build_profile reads: connect on_kept_sample and
// on_record to ProfileOptions' observers of the same names.
class TimelineCollector {
 public:
  // Writes a probe hit's decoded arguments into the string; false when the
  // sample is not a probe hit (probe::sdt_extra_fields, passed by the CLI:
  // analysis does not decode SDT payloads).
  using MarkerText = std::function<bool(const format::Sample&, std::string&)>;
  explicit TimelineCollector(MarkerText marker_text) : marker_text_(std::move(marker_text)) {}

  void on_kept_sample(const format::Sample& s, uint32_t aggregate);
  void on_record(const format::RecordView& r, const format::Session& session);
  // Bins the samples; call once, after build_profile.
  Timeline finish();

 private:
  MarkerText marker_text_;
  std::vector<uint32_t> aggregate_;  // per kept sample
  std::vector<uint64_t> time_;       // per kept sample
  std::vector<uint64_t> period_;     // per kept sample
  Timeline t_;
  std::string text_;
  std::vector<TimelineLoss> lost_records_;  // LOST: used only without LOST_SAMPLES
  bool saw_lost_samples_ = false;
};

}  // namespace sonde::analysis
