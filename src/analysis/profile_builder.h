// Reads a recording once and builds the shared Profile: every sample's
// frames are normalized (AddressSpace), symbolized once per distinct address
// (SymbolResolver), interned as locations and stack-tree nodes, and the
// sample is aggregated by (event, thread, cpu, stack).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/sample.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "analysis/address_space.h"
#include "analysis/profile.h"
#include "analysis/time_ranges.h"
#include "symbol/symbolizer.h"

namespace sonde::analysis {

struct ProfileFilter {
  std::vector<uint32_t> pids, tids;
  std::vector<std::string> comms;
  std::vector<std::string> events;
  std::vector<int> cpus;  // -C (sorted; empty: every CPU)
  TimeRanges time;  // --time
  bool accepts_event(std::string_view name) const;
  // -C: the sample's CPU is listed. Samples that carry no CPU cannot be
  // told apart: perf's message, as a runtime error.
  bool accepts_cpu(const format::Sample& s) const;
};

struct ProfileOptions {
  ProfileFilter filter;
  size_t max_stack = 0;        // 0: whole call chains
  bool callchains = true;      // false: only the sampled ip
  bool inline_frames = false;  // expand inline frames from DWARF into location lines
  bool srclines = false;       // source file:line for each location
  // Aggregate samples per CPU too (pprof's cpu label). Off: one aggregate
  // per (event, thread, comm, stack), whose cpu is that of its first sample;
  // fewer aggregates make a report's walk faster.
  bool split_by_cpu = true;
  // --header: fill Profile::header_facts, naming this input ("" : not).
  std::string header_facts_of;
  // Called with (bytes read, input size or 0) now and then.
  std::function<void(uint64_t, uint64_t)> progress;
  // Observers for outputs that need more than the aggregates (the HTML
  // page's timeline, analysis/timeline.h): each sample the filters kept,
  // with the index of the Profile sample it was added to; and every other
  // record, with the session that decodes its sample_id trailer.
  std::function<void(const format::Sample&, uint32_t aggregate)> on_kept_sample;
  std::function<void(const format::RecordView&, const format::Session&)> on_record;
};

// build_profile's engine, one sample at a time: a live reader (`sonde top`)
// adds samples as its walk delivers them and takes each interval's.
class ProfileBuilder {
 public:
  ProfileBuilder(Symbolizer& symbolizer, const ProfileOptions& options);
  ~ProfileBuilder();
  ProfileBuilder(const ProfileBuilder&) = delete;
  ProfileBuilder& operator=(const ProfileBuilder&) = delete;

  // One sample, in the walk's order. Allocates only for what it has not
  // seen before (a location, stack node, thread or aggregate key).
  void add(const format::Sample& s, const AddressSpace& space);
  // Live use: names the locations added so far (waiting for their symbols)
  // and copies into `out` every table so far with the samples added since
  // the last call, which are then dropped here. No inline frames or source
  // lines (those need the symbolizer, which the resolver thread owns until
  // finish()).
  void take_interval(Profile& out);
  // Names every location and returns the whole profile. Call once, last.
  Profile finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

Profile build_profile(format::RecordReader& reader, Symbolizer& symbolizer, const ProfileOptions& options);

}  // namespace sonde::analysis
