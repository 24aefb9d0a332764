#include "util/clock.h"
#include "record/drain_reader.h"

#include <time.h>

#include <cstring>

#include "format/perf_abi.h"
#include "format/records.h"
#include "format/uapi/perf_event.h"
#include "format/sample_edit.h"

namespace sonde::record {

namespace {

using format::cut_user_stack;
using format::sample_id_of;

// Without records, a marker at least this often (the extensions' produce()
// runs at each; the recorder promises every 100 ms).
constexpr auto kTick = std::chrono::milliseconds(100);

}  // namespace

DrainReader::DrainReader(RecordQueue& queue, uint64_t sample_type, uint64_t regs_user_mask)
    : queue_(queue),
      sample_type_(sample_type),
      regs_mask_(regs_user_mask),
      cut_below_(queue.capacity() / 4),
      drop_below_(queue.capacity() / 8) {}

void DrainReader::begin_pass() {
  pass_start_ns_ = monotonic_ns();
}

size_t DrainReader::drain(RingBuffer& ring, uint16_t tag) {
  size_t n = 0;
  ring.drain([&](std::span<const uint8_t> rec) {
    offer(rec, tag);
    ++n;
  });
  // Reported once the pressure is over (or at the end): a LOST_SAMPLES per
  // pass would itself fill the queue while samples are being dropped.
  if (unreported_ && queue_.free_bytes() >= cut_below_) report_drops();
  return n;
}

void DrainReader::offer(std::span<const uint8_t> rec, uint16_t tag) {
  format::RecordHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  if (h.type == format::kSample) return take_sample(rec, tag);
  queue_.push(EntryKind::kRecord, tag, rec);  // side-band: waits for room, never dropped
  ++pushed_;
}

void DrainReader::take_sample(std::span<const uint8_t> rec, uint16_t tag) {
  const size_t free = queue_.free_bytes();
  if (free < drop_below_) return drop(rec);
  if (free < cut_below_ && (sample_type_ & PERF_SAMPLE_STACK_USER)) {
    std::memcpy(scratch_.data(), rec.data(), rec.size());
    size_t n = cut_user_stack({scratch_.data(), rec.size()}, sample_type_, regs_mask_, kStackKeptUnderPressure);
    if (n != 0 && n < rec.size()) {
      ++counts_.stacks_cut;
      counts_.stack_bytes_cut += rec.size() - n;
      rec = {scratch_.data(), n};
    }
  }
  std::span<uint8_t> slot = queue_.try_reserve(rec.size());
  if (slot.empty()) return drop(rec);
  std::memcpy(slot.data(), rec.data(), rec.size());
  queue_.commit(EntryKind::kRecord, tag);
  ++pushed_;
}

void DrainReader::drop(std::span<const uint8_t> sample) {
  ++counts_.samples_dropped;
  ++unreported_;
  last_dropped_id_size_ = sample_id_of(sample, sample_type_, last_dropped_id_);
}

// One LOST_SAMPLES for the samples dropped since the last one, after the
// records kept meanwhile (perf and sonde count it in "Total Lost Samples").
void DrainReader::report_drops() {
  uint8_t buf[128];
  size_t n = format::build_lost_samples(buf, unreported_, {last_dropped_id_, last_dropped_id_size_});
  if (n != 0) queue_.push(EntryKind::kRecord, kNoSource, {buf, n});
  ++pushed_;
  unreported_ = 0;
}

bool DrainReader::end_pass(bool final) {
  if (final && unreported_) report_drops();
  const auto now = std::chrono::steady_clock::now();
  if (!final && pushed_ == 0 && now - last_marker_ < kTick) return !queue_.closed();
  last_marker_ = now;
  pushed_ = 0;
  if (final) return queue_.push(EntryKind::kFinal, 0, {});
  uint8_t time[8];
  std::memcpy(time, &pass_start_ns_, sizeof time);
  return queue_.push(EntryKind::kRound, 0, time);
}

}  // namespace sonde::record
