// perf's --time: which samples of a recording to keep, by timestamp. One
// parser for `report`, `script` and `convert` (perf 6.1's time-utils.c):
//
//   START,STOP            seconds as perf script prints them (up to 9
//                         decimals); either side may be empty (open)
//   A,B C,D               several ranges, separated by blanks, in order and
//                         not overlapping
//   P%/N[,Q%/M...]        the Nth slice of P% of the recording (10%/2: from
//                         10% to 20%), several comma-separated
//   A%-B%[,C%-D%...]      from A% to B% of the recording
//   P%                    the first P%
//
// Percentages are of the span between the first and the last sample, which
// the caller supplies once the recording is known (TimeSpec::resolve).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::analysis {

struct TimeRange {
  uint64_t start = 0;  // ns; 0: open
  uint64_t end = 0;    // ns, inclusive; 0: open
};

// The kept ranges; empty keeps everything. A sample without a timestamp
// (time 0) is always kept, as perf keeps it.
class TimeRanges {
 public:
  TimeRanges() = default;
  explicit TimeRanges(std::vector<TimeRange> ranges) : ranges_(std::move(ranges)) {}
  bool empty() const { return ranges_.empty(); }
  bool contains(uint64_t time) const;
  const std::vector<TimeRange>& ranges() const { return ranges_; }

 private:
  std::vector<TimeRange> ranges_;
};

// A parsed --time argument. parse() checks the whole syntax (a usage error,
// sonde::Error, naming the argument) before any recording is opened.
class TimeSpec {
 public:
  static TimeSpec parse(std::string_view text);

  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  // Percentages need the recording's first and last sample times.
  bool needs_sample_times() const { return percent_; }
  // The ranges in nanoseconds; `first`/`last` are used only by percentages.
  TimeRanges resolve(uint64_t first = 0, uint64_t last = 0) const;

 private:
  struct Slice {
    double from = 0, to = 0;  // fractions of the recording, 0..1
  };
  std::string text_;
  bool percent_ = false;
  std::vector<TimeRange> absolute_;
  std::vector<Slice> slices_;
};

}  // namespace sonde::analysis
