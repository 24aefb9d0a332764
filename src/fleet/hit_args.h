// A probe hit's arguments as labels of the rows `sonde push` writes: an SDT
// hit's (its RAW payload, decoded by a function the CLI passes in, as for
// the timeline: fleet does not decode SDT payloads) and a `sonde probe`
// event's tracepoint fields (probe* groups, without __probe_ip; other
// tracepoints' fields stay out: sched_switch's pids would make one row per
// value). Each distinct
// list of arguments gets a small index, which the rows' aggregation keys on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/sample.h"
#include "format/session.h"
#include "format/tracepoint_format.h"

namespace sonde::fleet {

using Labels = std::vector<std::pair<std::string, std::string>>;

// "arg1=5 arg2=-7" (no spaces inside a value) for an SDT hit; false when
// the sample is not one.
using SdtArgsText = std::function<bool(const format::Sample&, std::string&)>;

class HitArgs {
 public:
  explicit HitArgs(SdtArgsText sdt) : sdt_(std::move(sdt)) { lists_.emplace_back(); }
  // The session decoding the recording (any record's), for tracing data.
  void set_session(const format::Session& s) { session_ = &s; }
  // The index of the sample's argument list; 0 for none.
  uint32_t of(const format::Sample& s);
  const Labels& labels(uint32_t index) const { return lists_[index]; }
  // Every list so far, by index ([0] is the empty one).
  const std::vector<Labels>& lists() const { return lists_; }

 private:
  bool probe_fields(const format::Sample& s, Labels& out);
  SdtArgsText sdt_;
  const format::Session* session_ = nullptr;
  bool formats_loaded_ = false;
  std::unordered_map<uint64_t, format::TracepointFormat> formats_;
  std::vector<Labels> lists_;
  std::map<Labels, uint32_t> index_;
  std::string text_;
};

// "k=v k=v" -> pairs (a token without '=' is skipped).
Labels split_args(const std::string& text);

}  // namespace sonde::fleet
