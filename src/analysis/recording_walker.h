// Walks a recording the way perf's ordered-events queue does: metadata is
// taken at once; timestamped records are queued and delivered in time order
// when a FINISHED_ROUND makes it safe (everything up to the previous round's
// highest timestamp), so a sample always sees the mappings that preceded it
// even when they came from another CPU's buffer. The reading and ordering
// run on a second thread (RecordOrderer); the callbacks run on the caller's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/session.h"
#include "format/stream_reader.h"
#include "analysis/address_space.h"
#include "analysis/dwarf_unwinder.h"
#include "analysis/jit_timeline.h"
#include "analysis/record_orderer.h"
#include "analysis/unwind_policy.h"

namespace sonde::analysis {

struct WalkStats {
  uint64_t records = 0;
  uint64_t samples = 0;
  uint64_t lost_samples = 0;   // LOST_SAMPLES records' sum, else LOST records' (see count_lost())
  uint64_t bad_samples = 0;    // samples that did not decode
  std::string first_bad_sample;  // why the first one failed
  uint64_t truncated_bytes = 0;
  uint64_t unknown_records = 0;
  std::string stop_error;       // a malformed record ended the input early
};

class RecordingWalker {
 public:
  using SampleFn = std::function<void(const format::Sample&)>;
  using RecordFn = std::function<void(const format::RecordView&)>;

  // Samples with user registers and stack (--call-graph dwarf) are unwound
  // before delivery by the unwinder `make_unwinder` returns for this
  // recording (analysis/unwind_policy.h), asked once, at the first of them.
  RecordingWalker(format::RecordReader& reader, UnwinderFactory make_unwinder);
  ~RecordingWalker();

  // Delivers every sample in time order. `on_record` (optional) sees every
  // non-metadata record in the same order, after the address space has.
  // `progress` (optional) is called now and then with (position, size),
  // from the reading thread.
  void run(const SampleFn& on_sample, const RecordFn& on_record = nullptr,
           const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

  // Where the recording keeps copies of its JIT files (jit/jit_files.h),
  // looked in before the recorded paths when a jitdump is announced.
  void set_jit_dirs(std::vector<std::string> dirs) { jit_dirs_ = std::move(dirs); }
  // The jitdumps' note for the user ("" if none was seen or all was well).
  std::string jit_note() const { return jit_ ? jit_->note() : ""; }

  const format::Session& session() const { return session_; }
  const AddressSpace& space() const { return space_; }
  const WalkStats& stats() const { return stats_; }
  // nullptr until a sample needed unwinding.
  const DwarfUnwinder* unwinder() const { return unwinder_.get(); }

 private:
  template <class Batches>
  void walk_batches(Batches& source, const SampleFn& on_sample, const RecordFn& on_record);
  void take_stats(const RecordOrderer::Stats& st);
  void deliver(const format::RecordView& rec, const SampleFn& on_sample, const RecordFn& on_record);
  DwarfUnwinder* unwinder_for_this_recording();
  void count_lost();
  void on_code_mapping(const Mapping& m);

  format::RecordReader& reader_;
  format::Session session_;
  AddressSpace space_;
  WalkStats stats_;
  format::Sample sample_;
  UnwinderFactory make_unwinder_;
  std::unique_ptr<DwarfUnwinder> unwinder_;
  std::vector<std::string> jit_dirs_;
  std::unique_ptr<JitTimeline> jit_;  // from the first executable mmap seen
  bool unwinder_asked_ = false;
  uint64_t lost_in_lost_records_ = 0, lost_in_lost_samples_ = 0;
  bool saw_lost_samples_ = false;
};

}  // namespace sonde::analysis
