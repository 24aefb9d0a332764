// `sonde sdt latency BEGIN END`: the time from each hit of one probe to the
// matching hit of another, as bpftrace users write
//   usdt:...:begin { @start[tid] = nsecs; }
//   usdt:...:end /@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }
// from a recording: pairs matched per thread (or by an argument, e.g. a
// request id), in time order; a summary with quantiles and a histogram in
// nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "format/sample.h"
#include "probe/log2_hist.h"
#include "probe/sdt_format.h"

namespace sonde::probe {

struct LatencySpec {
  std::string begin, end;  // "%provider:event"
  unsigned key_arg = 0;    // 0: the thread id; N: the Nth argument's value
};

// "tid" -> 0, "arg1".."arg12" -> 1..12; throws a usage error otherwise.
unsigned parse_latency_key(const std::string& text);

class SdtLatency {
 public:
  // Throws a usage error unless BEGIN and END are two %PROVIDER:EVENT names.
  explicit SdtLatency(LatencySpec spec);
  // Samples in time order (RecordingWalker delivers them so).
  void add(const format::Sample& s);
  // Throws a runtime error naming the probes that were recorded when BEGIN
  // or END never fired in `input` (most likely a misspelt name).
  void require_hits(const std::string& input) const;

  uint64_t begins() const { return begins_; }
  uint64_t ends() const { return ends_; }
  uint64_t pairs() const { return durations_.size(); }
  // The summary: pairs, unmatched hits, min/mean/p50/p90/p99/max, histogram.
  std::string format() const;

 private:
  LatencySpec spec_;
  std::unordered_map<uint64_t, uint64_t> open_;  // key -> begin time
  std::vector<uint64_t> durations_;              // ns
  Log2Hist hist_;
  uint64_t begins_ = 0, ends_ = 0, unmatched_ends_ = 0, replaced_begins_ = 0;
  std::vector<SdtValue> values_;
  std::unordered_set<const format::EventInfo*> seen_;  // SDT events hit
};

}  // namespace sonde::probe
