// A directory of streams read as one recording (format/recording_dir.h):
// each file goes through its own RecordOrderer (its FINISHED_ROUND windows,
// on its own thread), then a k-way merge by time hands out one sequence.
// Records without a time (attrs, features, untimed side-band) come first;
// ties go to the earlier file (data, then data.N by N). Metadata that a later
// file repeats is left out (an attr is one attr across files; the same id with
// another attr is an error), so consumers see one recording, as if it had been
// one stream. A FINISHED_ROUND follows every kRoundRecords timed records, so
// what reads or writes the sequence (convert --to perf) keeps bounded windows.
//
// RecordingWalker takes the merge in batches instead (next_batch): views into
// the files' own batches, no second copy and no second ordering stage; a
// batch ends where a file must fetch its next one.
//
// Memory: per file, what its RecordOrderer holds (its window and two ready
// batches). Per record: one heap step over the files.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/record_orderer.h"
#include "format/recording_dir.h"
#include "format/session.h"
#include "format/stream_reader.h"

namespace sonde::analysis {

class DirectoryReader : public format::RecordReader {
 public:
  static constexpr uint64_t kRoundRecords = 4096;
  static constexpr size_t kBatchRecords = 2048;  // as RecordOrderer's

  explicit DirectoryReader(const format::RecordingDir& dir);
  ~DirectoryReader() override;
  // One record at a time, valid until the next call, with FINISHED_ROUNDs.
  bool next(format::RecordView& out) override;
  // The merged records a batch at a time (RecordOrderer's contract: valid
  // until the next call; no FINISHED_ROUND). Use either this or next().
  bool next_batch(std::vector<format::RecordView>& out);
  // After next_batch returned false (RecordOrderer::Stats, over the files).
  RecordOrderer::Stats batch_stats() const;

 private:
  struct Stream {
    std::string name;
    std::unique_ptr<format::RecordReader> reader;
    std::unique_ptr<RecordOrderer> orderer;
    std::vector<format::RecordView> batch;
    size_t at = 0;
    bool done = false;
    std::atomic<uint64_t> position{0};
  };
  struct Head {
    uint64_t time;
    uint32_t stream;
    bool operator>(const Head& o) const { return time != o.time ? time > o.time : stream > o.stream; }
  };

  bool take(format::RecordView& out, bool may_refill);
  bool must_refill(uint32_t i) const;
  void start();
  void advance(uint32_t i);  // past the current record of stream i
  bool refill(Stream& s);    // false when s has no more records
  void push_head(uint32_t i);
  bool keep(uint32_t i, const format::RecordView& rec);
  void finish(Stream& s);
  void update_position();

  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<Head> heap_;  // one entry per stream with a record ready
  format::Session session_;  // the merged recording's attrs, for times
  std::unordered_map<uint64_t, perf_event_attr> attr_of_id_;
  bool started_ = false;
  int64_t handed_out_ = -1;  // the stream whose record next() returned last
  uint64_t timed_since_round_ = 0;
  bool round_due_ = false;
  bool rounds_ = true;  // next() hands out FINISHED_ROUNDs, next_batch() not
  uint64_t delivered_ = 0;
  format::RecordHeader round_{};
};

// The one entry point for a recording given by the user: "-" (stdin), a file
// of either mode (format::open_recording), or a directory of streams.
std::unique_ptr<format::RecordReader> open_input(const std::string& path);

}  // namespace sonde::analysis
