// `sonde sdt stats`: what bpftrace users get from count() and hist() on a
// usdt probe, from a recording: per probe, its hits, and per argument its
// count, min, max, mean and a power-of-two histogram laid out as bpftrace's
// hist() prints it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/sample.h"
#include "probe/log2_hist.h"
#include "probe/sdt_format.h"

namespace sonde::probe {

class SdtStats {
 public:
  // Counts a sample if it is an SDT probe hit (else ignores it).
  void add(const format::Sample& s);
  // Whether a probe matching `globs` (any when empty) was hit.
  bool any(const std::vector<std::string>& globs) const;
  // Every probe in name order; only probes whose name matches one of
  // `globs` (all when empty).
  std::string format(const std::vector<std::string>& globs) const;
  // The same as one JSON document: {"probes": [{"name", "hits", "args":
  // [{"count", "unreadable", "min", "max", "mean", "histogram": [{"low",
  // "high", "count"}]}]}]}; integers exact (min/max as the argument's own
  // 64-bit type), "low"/"high" null for the open bounds of negatives.
  std::string format_json(const std::vector<std::string>& globs) const;

  struct Arg {
    uint64_t count = 0, faults = 0;
    bool is_float = false, is_signed = false, is_string = false;
    __int128 min = 0, max = 0, sum = 0;
    double fmin = 0, fmax = 0, fsum = 0;
    Log2Hist hist;
  };
  struct Probe {
    uint64_t hits = 0;
    std::vector<Arg> args;
  };

 private:
  std::map<std::string, Probe> probes_;
  std::vector<SdtValue> values_;
};

}  // namespace sonde::probe
