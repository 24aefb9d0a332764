// The first stage of reading a recording, on its own thread: records are
// read, framed and put in delivery order the way perf's ordered-events queue
// does (metadata and untimed records at once; timed records queued and, on
// each FINISHED_ROUND, those up to the previous round's highest timestamp
// released in time order). The caller (RecordingWalker) takes them in
// batches and does everything that depends on their meaning: sessions,
// address spaces, samples. Reading, framing and sorting then overlap the
// decoding and aggregation, on a second core.
//
// Each record is copied once, into 256 KiB chunks shared by the two threads:
// a chunk goes back to the pool when the reader has moved past it and the
// caller has taken every record in it. At most kMaxReadyBatches batches (of
// at most kBatch records and about kBatchBytes) wait for the caller, so
// memory stays bounded when the caller is slower.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "format/session.h"
#include "format/stream_reader.h"

namespace sonde::analysis {

// When a record is delivered: its sample time (SAMPLE) or sample_id time
// (other kernel records), 0 for records taken at once (metadata, untimed).
// The one rule for the orderer and the directory merge.
uint64_t delivery_time(const format::Session& session, const format::RecordView& rec);

class RecordOrderer {
 public:
  using Progress = std::function<void(uint64_t, uint64_t)>;

  // Starts reading `reader` on a new thread. `progress` (optional) is called
  // from that thread now and then with (position, size).
  RecordOrderer(format::RecordReader& reader, Progress progress);
  ~RecordOrderer();  // stops the reading thread (after its current read)
  RecordOrderer(const RecordOrderer&) = delete;
  RecordOrderer& operator=(const RecordOrderer&) = delete;

  // The next records in delivery order (FINISHED_ROUND and unknown types
  // left out). Their bytes stay valid until the following call. false at
  // the end of the input; rethrows what the reading thread threw.
  bool next_batch(std::vector<format::RecordView>& out);

  // What the reader reported; complete once next_batch returned false.
  struct Stats {
    uint64_t records = 0;
    uint64_t truncated_bytes = 0;
    uint64_t unknown_records = 0;
    std::string stop_error;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    size_t capacity = 0;
    size_t used = 0;                // reading thread only
    std::atomic<uint32_t> live{0};  // records stored and not yet taken back
    bool retired = false;           // under pool_mu_: the reader moved on
    bool pooled = false;            // under pool_mu_: in free_
  };
  // Kept small: a round of a busy recording queues tens of thousands.
  struct Ref {
    const uint8_t* bytes;
    Chunk* chunk;
    uint64_t offset;
    uint32_t size;      // the record (at most 64 KiB)
    uint32_t trailing;  // then its out-of-record payload (records over 4 GiB end the input first)
  };
  struct Queued {
    uint64_t time;
    uint64_t seq;
    Ref ref;
  };
  static_assert(sizeof(Queued) == 48);
  // Bigger records get a chunk of their own. 256 KiB: the records in flight
  // (a round and the ready batches) fit in a few, and a report's peak memory
  // is a budget (half of perf's).
  static constexpr size_t kChunkSize = size_t{256} << 10;
  // 2048: a 2.2M-sample report took 178 ms with batches of 1024 (handing
  // over twice as many), 150 ms with 2048 or 4096; 4096 costs 1.5 MB more.
  static constexpr size_t kBatch = 2048;
  // ... or fewer when they are big: 2048 --call-graph dwarf samples (8 KiB
  // of stack each) made batches of 17 MB, and a report of a 51 MB file
  // peaked at 56 MB; with 1 MiB batches at 17 MB.
  static constexpr size_t kBatchBytes = size_t{1} << 20;
  static constexpr size_t kMaxReadyBatches = 2;

  void read_all();  // the reading thread
  Ref store(const format::RecordView& rec);
  void retire(Chunk* c);
  void recycle(Chunk* c);  // under pool_mu_
  void release(Chunk* c, uint32_t records);
  void emit(const Ref& r);
  void flush_until(uint64_t limit);
  void publish_if_awaited();
  void publish(bool last);

  format::RecordReader& reader_;
  Progress progress_;
  Stats stats_;

  // Reading thread only.
  format::Session session_;  // its own, for timestamps
  std::vector<Queued> queue_;
  std::vector<Ref> building_;
  size_t building_bytes_ = 0;
  Chunk* current_ = nullptr;
  uint64_t seq_ = 0, max_time_ = 0, limit_ = 0;

  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Chunk>> chunks_;  // every chunk, under pool_mu_
  std::vector<Chunk*> free_;                    // under pool_mu_

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::vector<Ref>> ready_;  // under mu_
  bool done_ = false;                   // under mu_: no batch will follow
  bool stop_ = false;                   // under mu_: the caller is gone
  std::atomic<bool> stopping_{false};   // the same, read by the reading thread per record
  bool reader_waiting_ = false;         // under mu_: the reading thread waits for room
  bool caller_waiting_ = false;         // under mu_: the caller waits for a batch
  std::exception_ptr failure_;          // set before done_
  std::vector<Ref> taken_;              // the caller's current batch
  std::thread thread_;
};

}  // namespace sonde::analysis
