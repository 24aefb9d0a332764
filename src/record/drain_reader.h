// The reading half of a drain: moves records from kernel ring buffers into
// a RecordQueue as fast as it can and releases the rings at once, so that a
// slow writer (a pipe, a disk, -z) costs user-space buffer, not kernel
// records. When the queue runs low it sheds load in a fixed order:
//   1. below 1/4 free: dwarf samples keep only kStackKeptUnderPressure bytes
//      of user stack (registers stay; simpleperf's RecordReadThread does the
//      same);
//   2. below 1/8 free (or no room at all): whole samples are dropped; once
//      the queue is back above 1/4 free (or at the end) one LOST_SAMPLES
//      record reports them all, with the last dropped sample's sample_id;
//   3. never a non-sample record (MMAP2, COMM, FORK, EXIT, LOST, ...): it
//      waits for room.
// A pass over the rings ends with a round marker: the writer writes a
// FINISHED_ROUND there, so every record before it can still be ordered.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "record/record_queue.h"
#include "record/ring_buffer.h"

namespace sonde::record {

// What the drop policy did; every count also reaches the stream or the
// summary (docs/record.md).
struct DropCounts {
  uint64_t stacks_cut = 0;       // dwarf samples whose user stack was cut
  uint64_t stack_bytes_cut = 0;  // the user-stack bytes those lost
  uint64_t samples_dropped = 0;  // whole samples, each in a LOST_SAMPLES
  DropCounts& operator+=(const DropCounts& o) {
    stacks_cut += o.stacks_cut;
    stack_bytes_cut += o.stack_bytes_cut;
    samples_dropped += o.samples_dropped;
    return *this;
  }
};

class DrainReader {
 public:
  static constexpr size_t kStackKeptUnderPressure = 1024;

  // `sample_type`/`regs_user_mask`: the layout every drained sample has.
  DrainReader(RecordQueue& queue, uint64_t sample_type, uint64_t regs_user_mask);

  // Starts a pass: notes the time (CLOCK_MONOTONIC, the recording's clock)
  // that its round marker carries. Every record a later pass queues was
  // not yet in the ring when this pass read it, so is at least this late.
  void begin_pass();
  // Moves every complete record of `ring` into the queue, tagged `tag`.
  // Returns the records moved or dropped.
  size_t drain(RingBuffer& ring, uint16_t tag);
  // One record under the drop policy: what drain() does with each record
  // it reads (public so the policy's order in time is testable without a
  // kernel). A side-band record waits for room.
  void offer(std::span<const uint8_t> rec, uint16_t tag);
  // Ends a pass: a round marker when the pass queued anything or 100 ms
  // passed since the last one (the writer's chance to run extension
  // producers); `final` reports pending drops and ends the stream. A
  // round marker's payload is the u64 time begin_pass() noted. False once
  // the queue is closed.
  bool end_pass(bool final);
  const DropCounts& counts() const { return counts_; }

 private:
  void take_sample(std::span<const uint8_t> rec, uint16_t tag);
  void drop(std::span<const uint8_t> sample);
  void report_drops();

  RecordQueue& queue_;
  uint64_t sample_type_;
  uint64_t regs_mask_;
  size_t cut_below_, drop_below_;  // free-byte levels of the policy
  DropCounts counts_;
  size_t pushed_ = 0;              // entries queued in this pass
  uint64_t unreported_ = 0;        // samples dropped since the last LOST_SAMPLES
  uint8_t last_dropped_id_[64];    // that sample's sample_id trailer
  size_t last_dropped_id_size_ = 0;
  std::vector<uint8_t> scratch_ = std::vector<uint8_t>(65536);
  std::chrono::steady_clock::time_point last_marker_{};
  uint64_t pass_start_ns_ = 0;
};

}  // namespace sonde::record
