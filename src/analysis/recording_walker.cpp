#include "analysis/recording_walker.h"

#include "format/records.h"
#include "analysis/directory_reader.h"
#include "analysis/record_orderer.h"

namespace sonde::analysis {

using namespace sonde::format;

RecordingWalker::RecordingWalker(RecordReader& reader, UnwinderFactory make_unwinder)
    : reader_(reader), make_unwinder_(std::move(make_unwinder)) {}
RecordingWalker::~RecordingWalker() = default;

DwarfUnwinder* RecordingWalker::unwinder_for_this_recording() {
  if (!unwinder_asked_) {
    unwinder_asked_ = true;
    if (make_unwinder_) unwinder_ = make_unwinder_(session_);
    if (unwinder_) unwinder_->set_jit_timeline(jit_.get());
  }
  return unwinder_.get();
}

void RecordingWalker::deliver(const RecordView& rec, const SampleFn& on_sample, const RecordFn& on_record) {
  switch (rec.header.type) {
    case kSample: {
      std::string why;
      if (session_.decode_sample(rec, sample_, &why)) {
        ++stats_.samples;
        if (jit_) jit_->advance(sample_.pid, sample_.time, space_);
        if (!sample_.regs_user.empty() && !sample_.stack_user.empty())
          if (DwarfUnwinder* u = unwinder_for_this_recording())
            u->unwind(sample_, sample_.event->attr.sample_regs_user, space_);
        on_sample(sample_);
      } else {
        if (stats_.bad_samples++ == 0) stats_.first_bad_sample = why;
      }
      return;
    }
    case kLost:
      if (auto l = LostView::parse(rec.bytes)) lost_in_lost_records_ += l->lost;
      count_lost();
      break;
    case kLostSamples:
      if (auto l = LostSamplesView::parse(rec.bytes)) lost_in_lost_samples_ += l->lost;
      saw_lost_samples_ = true;
      count_lost();
      break;
    default:
      break;
  }
  space_.on_record(rec);
  if (const Mapping* m = space_.last_added()) on_code_mapping(*m);
  // An exec replaces every object of the process; an exit ends it (its
  // libdwfl session holds the objects' files open).
  if (unwinder_ && rec.header.type == kComm) {
    if (auto c = CommView::parse(rec.bytes); c && c->exec()) unwinder_->forget(c->pid);
  }
  if (unwinder_ && rec.header.type == kExit) {
    if (auto e = ForkExitView::parse(rec.bytes); e && e->pid == e->tid) unwinder_->forget(e->pid);
  }
  if (on_record) on_record(rec);
}

// Every executable mapping may announce a jitdump; the timeline is made at
// the first, when the events' attrs (their clock) are known.
void RecordingWalker::on_code_mapping(const Mapping& m) {
  if (m.kernel) return;
  if (!jit_) {
    constexpr int32_t kClockMonotonic = 1;
    bool mono = !session_.events().empty();
    for (const auto& e : session_.events()) mono = mono && e.attr.use_clockid && e.attr.clockid == kClockMonotonic;
    jit_ = std::make_unique<JitTimeline>(jit_dirs_, mono);
    if (unwinder_) unwinder_->set_jit_timeline(jit_.get());
  }
  jit_->on_mmap(m.pid, m.path, space_);
}

void RecordingWalker::run(const SampleFn& on_sample, const RecordFn& on_record,
                          const std::function<void(uint64_t, uint64_t)>& progress) {
  // A directory is merged in order by its own files' orderers: its batches
  // are taken as they are (no second ordering stage, no second copy).
  if (auto* dir = dynamic_cast<DirectoryReader*>(&reader_)) {
    struct WithProgress {
      DirectoryReader& dir;
      const std::function<void(uint64_t, uint64_t)>& progress;
      uint64_t batches = 0;
      bool next_batch(std::vector<RecordView>& out) {
        const bool more = dir.next_batch(out);
        if (progress && (!more || ++batches % 32 == 0)) progress(dir.position(), dir.input_size());
        return more;
      }
    } source{*dir, progress};
    walk_batches(source, on_sample, on_record);
    take_stats(dir->batch_stats());
    return;
  }
  RecordOrderer orderer(reader_, progress);
  walk_batches(orderer, on_sample, on_record);
  take_stats(orderer.stats());
}

template <class Batches>
void RecordingWalker::walk_batches(Batches& source, const SampleFn& on_sample, const RecordFn& on_record) {
  std::vector<RecordView> batch;
  while (source.next_batch(batch)) {
    for (const RecordView& rec : batch) {
      if (session_.observe(rec)) {
        if (rec.header.type == kHeaderBuildId) space_.on_record(rec);
        continue;
      }
      deliver(rec, on_sample, on_record);
    }
  }
}

void RecordingWalker::take_stats(const RecordOrderer::Stats& st) {
  stats_.records = st.records;
  stats_.truncated_bytes = st.truncated_bytes;
  stats_.stop_error = st.stop_error;
  stats_.unknown_records = st.unknown_records;
}

// One loss, two records: perf (from the events' PERF_FORMAT_LOST counts)
// and sonde (one per LOST) write LOST_SAMPLES for the samples that a LOST
// record already reported. Like perf's "Total Lost Samples", count the
// LOST_SAMPLES; only a recording without any (an older perf or kernel)
// falls back to the LOST records. Kept current during the walk (a live
// reader shows it).
void RecordingWalker::count_lost() {
  stats_.lost_samples = saw_lost_samples_ ? lost_in_lost_samples_ : lost_in_lost_records_;
}

}  // namespace sonde::analysis
