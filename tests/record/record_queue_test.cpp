// The drain's user-space buffer (RecordQueue), the sample surgery of its
// drop policy (format/sample_edit.h) and the policy's order (DrainReader), without
// a kernel.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "format/perf_abi.h"
#include "format/uapi/perf_event.h"
#include "record/drain_reader.h"
#include "record/record_queue.h"
#include "format/sample_edit.h"
#include "support/test_support.h"

using namespace sonde::record;
using sonde::format::cut_user_stack;
using sonde::format::sample_id_of;
using namespace sonde::uapi;

namespace {

// Waits on the queue's own state until a producer blocks in reserve() for
// room; false when none does within a minute (it never ran).
bool wait_until_producer_waits(const RecordQueue& q) {
  return sonde::test::wait_until([&] { return q.producer_waiting(); }, std::chrono::minutes(1));
}

// A record of `size` bytes (8-aligned) whose u64 words all hold `seq`.
std::vector<uint8_t> numbered(uint64_t seq, size_t size) {
  std::vector<uint8_t> r(size);
  for (size_t at = 0; at < size; at += 8) std::memcpy(r.data() + at, &seq, 8);
  return r;
}

TEST(RecordQueue, EveryEntryComesOutWholeAndInOrderAcrossWraps) {
  RecordQueue q(RecordQueue::kMinCapacity);
  constexpr uint64_t kCount = 20000;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount; ++i) ASSERT_TRUE(q.push(EntryKind::kRecord, uint16_t(i % 7), numbered(i, 8 * (1 + i % 1500))));
    q.push(EntryKind::kFinal, 0, {});
  });
  uint64_t seen = 0;
  for (;;) {
    const EntryHeader* e = q.front(1000);
    ASSERT_NE(e, nullptr);
    if (e->kind == EntryKind::kFinal) break;
    ASSERT_EQ(e->kind, EntryKind::kRecord);
    ASSERT_EQ(e->tag, seen % 7);
    ASSERT_EQ(e->size, 8 * (1 + seen % 1500));
    const auto* p = reinterpret_cast<const uint8_t*>(e + 1);
    uint64_t first = 0, last = 0;
    std::memcpy(&first, p, 8);
    std::memcpy(&last, p + e->size - 8, 8);
    ASSERT_EQ(first, seen);
    ASSERT_EQ(last, seen);
    q.pop();
    ++seen;
  }
  q.pop();
  producer.join();
  EXPECT_EQ(seen, kCount);
  EXPECT_EQ(q.free_bytes(), q.capacity());
}

TEST(RecordQueue, AFullQueueRefusesTryReserveAndReserveWaitsForRoom) {
  RecordQueue q(RecordQueue::kMinCapacity);
  const size_t slot = 64 * 1024 - 8;
  size_t pushed = 0;
  while (!q.try_reserve(slot).empty()) {
    q.commit(EntryKind::kRecord, 0);
    ++pushed;
  }
  ASSERT_EQ(pushed, RecordQueue::kMinCapacity / (slot + 8));
  std::atomic<bool> done{false};
  std::thread producer([&] {
    q.push(EntryKind::kRecord, 1, numbered(1, slot));
    done = true;
  });
  EXPECT_TRUE(wait_until_producer_waits(q));  // fails when the producer never ran
  EXPECT_FALSE(done);  // no room: still waiting
  ASSERT_NE(q.front(0), nullptr);
  q.pop();
  producer.join();
  EXPECT_TRUE(done);
}

TEST(RecordQueue, ClosingWakesAWaitingProducerWhoseReserveThenFails) {
  RecordQueue q(RecordQueue::kMinCapacity);
  while (!q.try_reserve(4096).empty()) q.commit(EntryKind::kRecord, 0);
  bool pushed = true;
  std::thread producer([&] { pushed = q.push(EntryKind::kRecord, 0, numbered(1, 4096)); });
  EXPECT_TRUE(wait_until_producer_waits(q));
  q.close();
  producer.join();
  EXPECT_FALSE(pushed);
  EXPECT_TRUE(q.reserve(8).empty());
}

TEST(RecordQueue, EmptyQueueGivesNothingAfterTheWait) { EXPECT_EQ(RecordQueue(1).front(5), nullptr); }

// The recorder's dwarf sample layout: IDENTIFIER IP TID TIME CPU PERIOD,
// CALLCHAIN, REGS_USER (2 registers here), STACK_USER.
constexpr uint64_t kType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                           PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                           PERF_SAMPLE_STACK_USER;
constexpr uint64_t kRegs = 0x3;

std::vector<uint8_t> dwarf_sample(uint64_t stack, uint64_t dyn) {
  std::vector<uint64_t> w = {0, /*identifier*/ 77, /*ip*/ 0x401000, /*pid,tid*/ (uint64_t{12} << 32) | 11,
                             /*time*/ 5000, /*cpu*/ 1, /*period*/ 250, /*nr*/ 2, 0xffffffff81000000, 0x401000,
                             /*abi*/ 2, /*regs*/ 0xaaaa, 0xbbbb, /*stack size*/ stack};
  for (uint64_t i = 0; i < stack / 8; ++i) w.push_back(0x5151515151515151);
  if (stack) w.push_back(dyn);
  std::vector<uint8_t> b(w.size() * 8);
  std::memcpy(b.data(), w.data(), b.size());
  sonde::format::RecordHeader h{sonde::format::kSample, 2, static_cast<uint16_t>(b.size())};
  std::memcpy(b.data(), &h, sizeof h);
  return b;
}

uint64_t word(const std::vector<uint8_t>& b, size_t i) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + 8 * i, 8);
  return v;
}

TEST(SampleCut, StackIsCutToWhatIsKeptWithSizeAndDynSizeConsistent) {
  auto s = dwarf_sample(8192, 6000);
  size_t n = cut_user_stack(s, kType, kRegs, 1024);
  ASSERT_EQ(n, 14 * 8 + 1024 + 8);
  sonde::format::RecordHeader h;
  std::memcpy(&h, s.data(), sizeof h);
  EXPECT_EQ(h.size, n);
  EXPECT_EQ(word(s, 11), 0xaaaau);         // registers kept
  EXPECT_EQ(word(s, 13), 1024u);           // size
  EXPECT_EQ(word(s, 14 + 1024 / 8), 1024u);  // dyn_size = min(6000, 1024)
}

TEST(SampleCut, DynSizeBelowTheCutIsKept) {
  auto s = dwarf_sample(8192, 512);
  ASSERT_EQ(cut_user_stack(s, kType, kRegs, 1024), 14 * 8 + 1024 + 8u);
  EXPECT_EQ(word(s, 14 + 1024 / 8), 512u);
}

TEST(SampleCut, CutToZeroDropsDynSizeAsTheAbiSays) {
  auto s = dwarf_sample(4096, 4096);
  ASSERT_EQ(cut_user_stack(s, kType, kRegs, 7), 14 * 8u);  // rounded down to 0
  EXPECT_EQ(word(s, 13), 0u);
}

TEST(SampleCut, NothingToCutKeepsTheSample) {
  auto s = dwarf_sample(512, 100);
  auto before = s;
  EXPECT_EQ(cut_user_stack(s, kType, kRegs, 1024), s.size());
  EXPECT_EQ(s, before);
  auto empty = dwarf_sample(0, 0);
  EXPECT_EQ(cut_user_stack(empty, kType, kRegs, 1024), empty.size());
}

TEST(SampleCut, ABrokenSampleIsLeftAlone) {
  auto s = dwarf_sample(8192, 6000);
  std::vector<uint8_t> short_one(s.begin(), s.begin() + 14 * 8);  // header says more than there is
  EXPECT_EQ(cut_user_stack(short_one, kType, kRegs, 1024), 0u);
  auto lying = dwarf_sample(64, 64);
  uint64_t huge = 1 << 20;
  std::memcpy(lying.data() + 13 * 8, &huge, 8);  // a stack size beyond the record
  EXPECT_EQ(cut_user_stack(lying, kType, kRegs, 1024), 0u);
  EXPECT_EQ(cut_user_stack(s, kType & ~uint64_t{PERF_SAMPLE_STACK_USER}, kRegs, 1024), 0u);
  // A header claiming fewer bytes than itself (found by fuzz_sample_cut:
  // the walk started past the end).
  sonde::format::RecordHeader tiny{sonde::format::kSample, 0, 4};
  std::memcpy(s.data(), &tiny, sizeof tiny);
  EXPECT_EQ(cut_user_stack(s, kType, kRegs, 1024), 0u);
  uint8_t out[64];
  EXPECT_EQ(sample_id_of(s, kType, out), 0u);
}

TEST(SampleCut, SampleIdIsTheTrailerOrderOfTheSamplesFields) {
  auto s = dwarf_sample(64, 64);
  uint8_t out[64];
  ASSERT_EQ(sample_id_of(s, kType, out), 32u);  // TID TIME CPU IDENTIFIER
  uint64_t w[4];
  std::memcpy(w, out, sizeof w);
  EXPECT_EQ(w[0], (uint64_t{12} << 32) | 11);
  EXPECT_EQ(w[1], 5000u);
  EXPECT_EQ(w[2], 1u);
  EXPECT_EQ(w[3], 77u);
  EXPECT_EQ(sample_id_of({s.data(), 24}, kType, out), 0u);
  EXPECT_EQ(sample_id_of(s, kType, {out, 16}), 0u);
}

// The drop policy's order in time (drain_reader.h), with a queue nobody
// empties: full samples while more than 1/4 of it is free, then cut ones
// down to 1/8, then none; a side-band record still gets in; the end of the
// stream reports every dropped sample in one LOST_SAMPLES carrying the last
// dropped sample's sample_id.
namespace drop_order {

struct Seen {
  std::vector<size_t> sample_sizes;  // each sample entry's size, in queue order
  std::vector<uint32_t> other_types;  // non-sample records, in order
  uint64_t lost_samples = 0;
  uint64_t lost_samples_tid = 0;
  bool final = false;
};

Seen empty_queue(RecordQueue& q) {
  Seen s;
  while (const EntryHeader* e = q.front(0)) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(e + 1);
    if (e->kind == EntryKind::kFinal) s.final = true;
    if (e->kind == EntryKind::kRecord) {
      sonde::format::RecordHeader h;
      std::memcpy(&h, p, sizeof h);
      if (h.type == sonde::format::kSample) {
        s.sample_sizes.push_back(h.size);
      } else {
        s.other_types.push_back(h.type);
        if (h.type == sonde::format::kLostSamples) {
          std::memcpy(&s.lost_samples, p + 8, 8);
          std::memcpy(&s.lost_samples_tid, p + 16, 8);  // sample_id starts with TID
        }
      }
    }
    q.pop();
  }
  return s;
}

std::vector<uint8_t> comm_record() {
  std::vector<uint8_t> b(48, 0);
  sonde::format::RecordHeader h{sonde::format::kComm, 0, 48};
  std::memcpy(b.data(), &h, sizeof h);
  return b;
}

TEST(DropPolicy, StacksAreCutBeforeAnySampleIsDroppedAndSideBandStillGetsIn) {
  RecordQueue q(RecordQueue::kMinCapacity);
  DrainReader reader(q, kType, kRegs);
  reader.begin_pass();
  const auto full = dwarf_sample(8192, 8192);
  const size_t cut_size = 14 * 8 + DrainReader::kStackKeptUnderPressure + 8;
  size_t offered = 0;
  while (reader.counts().samples_dropped < 5) {
    auto s = full;
    uint64_t tid = (uint64_t{12} << 32) | (1000 + offered);  // each sample names itself
    std::memcpy(s.data() + 3 * 8, &tid, 8);
    reader.offer(s, 1);
    ASSERT_LT(++offered, 1000u);
  }
  reader.offer(comm_record(), 1);  // below the drop level: still queued
  Seen s = empty_queue(q);
  const DropCounts& c = reader.counts();
  ASSERT_GT(c.stacks_cut, 0u);
  EXPECT_EQ(c.samples_dropped, 5u);
  EXPECT_EQ(s.sample_sizes.size() + c.samples_dropped, offered);
  // Full ones first, then only cut ones: the order in time, not only counts.
  size_t first_cut = 0;
  while (first_cut < s.sample_sizes.size() && s.sample_sizes[first_cut] == full.size()) ++first_cut;
  for (size_t i = first_cut; i < s.sample_sizes.size(); ++i) ASSERT_EQ(s.sample_sizes[i], cut_size) << i;
  EXPECT_EQ(s.sample_sizes.size() - first_cut, c.stacks_cut);
  EXPECT_EQ(c.stack_bytes_cut, c.stacks_cut * (full.size() - cut_size));
  // The full ones filled the queue to its last quarter; cut ones to its last eighth.
  EXPECT_GE(first_cut * (full.size() + 8), RecordQueue::kMinCapacity * 3 / 4 - full.size() - 8);
  EXPECT_EQ(s.other_types, std::vector<uint32_t>{sonde::format::kComm});
  EXPECT_EQ(s.lost_samples, 0u) << "not reported while the pressure lasts";
  // The end reports them all, naming the last dropped sample.
  ASSERT_TRUE(reader.end_pass(true));
  Seen end = empty_queue(q);
  EXPECT_EQ(end.other_types, std::vector<uint32_t>{sonde::format::kLostSamples});
  EXPECT_EQ(end.lost_samples, 5u);
  EXPECT_EQ(end.lost_samples_tid, (uint64_t{12} << 32) | (1000 + offered - 1));
  EXPECT_TRUE(end.final);
}

TEST(DropPolicy, WithoutUserStacksSamplesAreKeptWholeUntilTheyAreDropped) {
  RecordQueue q(RecordQueue::kMinCapacity);
  const uint64_t fp_type = kType & ~uint64_t{PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_USER};
  DrainReader reader(q, fp_type, 0);
  auto s = dwarf_sample(0, 0);
  s.resize(12 * 8);  // no REGS_USER/STACK_USER words
  sonde::format::RecordHeader h{sonde::format::kSample, 2, static_cast<uint16_t>(s.size())};
  std::memcpy(s.data(), &h, sizeof h);
  size_t offered = 0;
  while (reader.counts().samples_dropped == 0) {
    reader.offer(s, 1);
    ASSERT_LT(++offered, 100000u);
  }
  Seen seen = empty_queue(q);
  EXPECT_EQ(reader.counts().stacks_cut, 0u);
  EXPECT_EQ(seen.sample_sizes.size(), offered - 1);
  for (size_t size : seen.sample_sizes) ASSERT_EQ(size, s.size());
  // Dropped only below the last eighth.
  EXPECT_GE(seen.sample_sizes.size() * (s.size() + 8), RecordQueue::kMinCapacity * 7 / 8 - s.size() - 8);
}

}  // namespace drop_order

}  // namespace
