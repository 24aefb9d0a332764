// format/records.h: every kind round-trips builder -> parse with its exact
// fields, and every parse stays inside the bytes it is given (each prefix is
// copied into a buffer of its own size, so a sanitizer build sees any read
// past it).
#include "format/records.h"
#include "format/event_kind.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace sonde::format;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes finished(RecordBuilder b) {
  EXPECT_TRUE(b.finish());
  return std::move(b.raw());
}

Bytes sample_id_trailer() { return Bytes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}; }

Bytes with_trailer(RecordBuilder b) {
  b.put_bytes(sample_id_trailer());
  return finished(std::move(b));
}

// Every prefix shorter than the fixed part is rejected; the fixed part alone parses.
template <typename View>
void expect_prefixes_rejected(const Bytes& rec, size_t fixed) {
  ASSERT_GE(rec.size(), fixed);
  for (size_t n = 0; n < fixed; ++n) {
    Bytes cut(rec.begin(), rec.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(View::parse(cut)) << "prefix of " << n << " bytes";
  }
  Bytes exact(rec.begin(), rec.begin() + static_cast<std::ptrdiff_t>(fixed));
  EXPECT_TRUE(View::parse(exact));
}

void set_type(Bytes& rec, uint32_t type) { std::memcpy(rec.data(), &type, sizeof type); }

Bytes id_of(size_t n) {
  Bytes id(n);
  for (size_t i = 0; i < n; ++i) id[i] = static_cast<uint8_t>(0xa0 + i);
  return id;
}

Mmap2View inode_mmap2() {
  Mmap2View m;
  m.misc = kMiscUser;
  m.pid = 4242, m.tid = 4243;
  m.addr = 0x7f0000001000, m.len = 0x21000, m.pgoff = 0x3000;
  m.maj = 8, m.min = 3, m.ino = 123456789, m.ino_generation = 7;
  m.prot = 5, m.flags = 2;
  m.filename = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  return m;
}

}  // namespace

TEST(Records, Mmap2InodeFormRoundTrips) {
  Bytes rec = with_trailer(build_mmap2(inode_mmap2()));
  EXPECT_EQ(rec.size() % 8, 0u);
  auto v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->misc, kMiscUser);
  EXPECT_FALSE(v->has_build_id());
  EXPECT_EQ(v->pid, 4242u);
  EXPECT_EQ(v->tid, 4243u);
  EXPECT_EQ(v->addr, 0x7f0000001000u);
  EXPECT_EQ(v->len, 0x21000u);
  EXPECT_EQ(v->pgoff, 0x3000u);
  EXPECT_EQ(v->maj, 8u);
  EXPECT_EQ(v->min, 3u);
  EXPECT_EQ(v->ino, 123456789u);
  EXPECT_EQ(v->ino_generation, 7u);
  EXPECT_TRUE(v->build_id.empty());
  EXPECT_EQ(v->prot, 5u);
  EXPECT_EQ(v->flags, 2u);
  EXPECT_EQ(v->filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_TRUE(v->filename_terminated);
}

TEST(Records, Mmap2BuildIdFormRoundTrips) {
  Mmap2View m = inode_mmap2();
  Bytes id = id_of(20);
  m.build_id = id;
  Bytes rec = with_trailer(build_mmap2(m));
  auto v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->has_build_id());
  EXPECT_EQ(v->misc, kMiscUser | kMiscMmapBuildId);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
  // The union holds the id, not the inode.
  EXPECT_EQ(v->maj, 0u);
  EXPECT_EQ(v->ino, 0u);
  EXPECT_EQ(v->pid, 4242u);
  EXPECT_EQ(v->prot, 5u);
  EXPECT_EQ(v->filename, m.filename);
}

TEST(Records, Mmap2ShortBuildIdKeepsItsSize) {
  Mmap2View m = inode_mmap2();
  Bytes id = id_of(16);  // an md5 build id
  m.build_id = id;
  auto v = Mmap2View::parse(finished(build_mmap2(m)));
  ASSERT_TRUE(v);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
}

TEST(Records, Mmap2WithTheBitButNotTheShapeIsTheInodeForm) {
  // The kernel leaks the build-id bit onto inode-form records (6.18): the
  // device's major number lands in the size byte and the reserved bytes.
  Mmap2View m = inode_mmap2();
  for (uint32_t maj : {0u, 254u, 259u}) {
    SCOPED_TRACE(maj);
    m.maj = maj;
    Bytes rec = finished(build_mmap2(m));
    rec[offsetof(RecordHeader, misc)] |= kMiscMmapBuildId & 0xff;
    rec[offsetof(RecordHeader, misc) + 1] |= kMiscMmapBuildId >> 8;
    auto v = Mmap2View::parse(rec);
    ASSERT_TRUE(v);
    EXPECT_FALSE(v->has_build_id());
    EXPECT_TRUE(v->build_id.empty());
    EXPECT_EQ(v->maj, maj);
    EXPECT_EQ(v->min, m.min);
    EXPECT_EQ(v->ino, m.ino);
  }
  // A size above 20 in a build-id record is that too.
  Mmap2View b = inode_mmap2();
  Bytes id = id_of(20);
  b.build_id = id;
  Bytes rec = finished(build_mmap2(b));
  rec[offsetof(Mmap2Fixed, bid.build_id_size)] = 200;
  auto v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->build_id.empty());
  Mmap2View m2 = inode_mmap2();
  // The builder clamps a longer id to 20 bytes.
  Bytes long_id = id_of(32);
  m2.build_id = long_id;
  v = Mmap2View::parse(finished(build_mmap2(m2)));
  ASSERT_TRUE(v);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id_of(20));
}

TEST(Records, Mmap2BuilderWritesTheInodeFormWithoutAnId) {
  Mmap2View m = inode_mmap2();
  m.misc |= kMiscMmapBuildId;  // asked for, but there is no id to write
  auto v = Mmap2View::parse(finished(build_mmap2(m)));
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->has_build_id());
  EXPECT_EQ(v->ino, 123456789u);
}

TEST(Records, Mmap2DataBitIsKept) {
  Mmap2View m = inode_mmap2();
  m.misc = kMiscUser | kMiscMmapData;
  auto v = Mmap2View::parse(finished(build_mmap2(m)));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->misc, kMiscUser | kMiscMmapData);
}

TEST(Records, Mmap2RejectsTruncatedBytes) {
  expect_prefixes_rejected<Mmap2View>(with_trailer(build_mmap2(inode_mmap2())), sizeof(Mmap2Fixed));
}

TEST(Records, Mmap2FilenameWithoutNulIsBoundedByTheRecord) {
  Bytes rec = finished(build_mmap2(inode_mmap2()));
  rec.resize(sizeof(Mmap2Fixed) + 4);  // "/usr" and no NUL
  auto v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->filename, "/usr");
  EXPECT_FALSE(v->filename_terminated);
  rec.resize(sizeof(Mmap2Fixed));
  v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->filename, "");
  EXPECT_FALSE(v->filename_terminated);
}

TEST(Records, ParseRejectsAnotherKind) {
  Bytes rec = finished(build_mmap2(inode_mmap2()));
  set_type(rec, kMmap);
  EXPECT_FALSE(Mmap2View::parse(rec));
  set_type(rec, kSample);
  EXPECT_FALSE(MmapView::parse(rec));
  EXPECT_FALSE(CommView::parse(rec));
  EXPECT_FALSE(ForkExitView::parse(rec));
  EXPECT_FALSE(LostView::parse(rec));
  EXPECT_FALSE(LostSamplesView::parse(rec));
  EXPECT_FALSE(HeaderBuildIdView::parse(rec));
  EXPECT_FALSE(FeatureView::parse(rec));
  EXPECT_FALSE(EventUpdateView::parse(rec));
  EXPECT_FALSE(TracingDataView::parse(rec));
  EXPECT_FALSE(AuxtraceView::parse(rec));
  EXPECT_FALSE(HeaderAttrView::parse(rec));
}

TEST(Records, MmapRoundTripsAndRejectsTruncatedBytes) {
  MmapView m;
  m.misc = kMiscUser | kMiscMmapData;
  m.pid = 7, m.tid = 8, m.addr = 0x400000, m.len = 0x1000, m.pgoff = 0x2000;
  m.filename = "/bin/true";
  Bytes rec = with_trailer(build_mmap(m));
  auto v = MmapView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->misc, kMiscUser | kMiscMmapData);
  EXPECT_EQ(v->pid, 7u);
  EXPECT_EQ(v->tid, 8u);
  EXPECT_EQ(v->addr, 0x400000u);
  EXPECT_EQ(v->len, 0x1000u);
  EXPECT_EQ(v->pgoff, 0x2000u);
  EXPECT_EQ(v->filename, "/bin/true");
  EXPECT_TRUE(v->filename_terminated);
  expect_prefixes_rejected<MmapView>(rec, sizeof(MmapFixed));
}

TEST(Records, CommRoundTripsWithItsExecBit) {
  CommView c;
  c.misc = kMiscUser | kMiscCommExec;
  c.pid = 100, c.tid = 101;
  c.comm = "hot_loop";
  Bytes rec = with_trailer(build_comm(c));
  auto v = CommView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->exec());
  EXPECT_EQ(v->pid, 100u);
  EXPECT_EQ(v->tid, 101u);
  EXPECT_EQ(v->comm, "hot_loop");
  EXPECT_TRUE(v->comm_terminated);
  c.misc = kMiscUser;
  v = CommView::parse(finished(build_comm(c)));
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->exec());
}

TEST(Records, CommRejectsTruncatedBytesAndBoundsItsText) {
  CommView c;
  c.pid = c.tid = 1;
  c.comm = "abcdefgh";  // 8 bytes: the NUL starts the next 8
  Bytes rec = finished(build_comm(c));
  expect_prefixes_rejected<CommView>(rec, sizeof(CommFixed));
  rec.resize(sizeof(CommFixed) + 8);
  auto v = CommView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->comm, "abcdefgh");
  EXPECT_FALSE(v->comm_terminated);
}

TEST(Records, ForkAndExitRoundTrip) {
  ForkExitView f{0, 10, 11, 12, 13, 0x123456789};
  Bytes fork = with_trailer(build_fork(f));
  Bytes exit = with_trailer(build_exit(f));
  RecordHeader h;
  std::memcpy(&h, fork.data(), sizeof h);
  EXPECT_EQ(h.type, kFork);
  std::memcpy(&h, exit.data(), sizeof h);
  EXPECT_EQ(h.type, kExit);
  for (const Bytes* rec : {&fork, &exit}) {
    auto v = ForkExitView::parse(*rec);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->pid, 10u);
    EXPECT_EQ(v->ppid, 11u);
    EXPECT_EQ(v->tid, 12u);
    EXPECT_EQ(v->ptid, 13u);
    EXPECT_EQ(v->time, 0x123456789u);
    expect_prefixes_rejected<ForkExitView>(*rec, sizeof(ForkExit));
  }
}

TEST(Records, LostRoundTripsAndRejectsTruncatedBytes) {
  Bytes rec = with_trailer(build_lost({77, 12345}));
  auto v = LostView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->id, 77u);
  EXPECT_EQ(v->lost, 12345u);
  expect_prefixes_rejected<LostView>(rec, sizeof(Lost));
}

TEST(Records, LostSamplesIsBuiltWithoutAllocatingAndRoundTrips) {
  uint8_t buf[64];
  Bytes trailer = sample_id_trailer();
  size_t n = build_lost_samples(buf, 999, trailer);
  ASSERT_EQ(n, sizeof(LostSamples) + trailer.size());
  Bytes rec(buf, buf + n);
  RecordHeader h;
  std::memcpy(&h, rec.data(), sizeof h);
  EXPECT_EQ(h.type, kLostSamples);
  EXPECT_EQ(h.misc, 0);
  EXPECT_EQ(h.size, n);
  EXPECT_EQ(Bytes(rec.begin() + sizeof(LostSamples), rec.end()), trailer);
  auto v = LostSamplesView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->lost, 999u);
  expect_prefixes_rejected<LostSamplesView>(rec, sizeof(LostSamples));
  // Too small a buffer: nothing is written.
  EXPECT_EQ(build_lost_samples(std::span<uint8_t>(buf, n - 1), 999, trailer), 0u);
  EXPECT_EQ(build_lost_samples(buf, 5), sizeof(LostSamples));
}

TEST(Records, HeaderBuildIdRoundTrips) {
  Bytes id = id_of(20);
  HeaderBuildIdView b;
  b.misc = kMiscUser;
  b.pid = -1;
  b.build_id = id;
  b.filename = "/usr/bin/dash";
  Bytes rec = finished(build_header_build_id(b));
  auto v = HeaderBuildIdView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->misc, kMiscUser | kMiscBuildIdSize);
  EXPECT_EQ(v->pid, -1);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
  EXPECT_EQ(v->filename, "/usr/bin/dash");
  EXPECT_TRUE(v->filename_terminated);
  expect_prefixes_rejected<HeaderBuildIdView>(rec, sizeof(BuildIdRecordFixed));
}

TEST(Records, HeaderBuildIdWithoutSizeBitDropsTrailingZeros) {
  HeaderBuildIdView b;
  Bytes id = id_of(16);
  b.build_id = id;
  b.filename = "/x";
  Bytes rec = finished(build_header_build_id(b));
  uint16_t misc = 0;  // an older perf: no size bit, 20 bytes zero-padded
  std::memcpy(rec.data() + offsetof(RecordHeader, misc), &misc, sizeof misc);
  auto v = HeaderBuildIdView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
}

TEST(Records, HeaderBuildIdSizeAbove20IsClamped) {
  HeaderBuildIdView b;
  Bytes id = id_of(20);
  b.build_id = id;
  b.filename = "/x";
  Bytes rec = finished(build_header_build_id(b));
  rec[offsetof(BuildIdRecordFixed, size)] = 0xff;
  auto v = HeaderBuildIdView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
}

TEST(Records, HeaderBuildIdTableEntryIsPaddedTo64) {
  HeaderBuildIdView b;
  Bytes id = id_of(20);
  b.build_id = id;
  b.filename = "/usr/lib/libfoo.so";
  Bytes rec = finished(build_header_build_id(b, 64, 0));
  EXPECT_EQ(rec.size(), sizeof(BuildIdRecordFixed) + 64);
  EXPECT_FALSE(HeaderBuildIdView::parse(rec));  // type 0: a table entry, not a record
  set_type(rec, kHeaderBuildId);
  auto v = HeaderBuildIdView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->filename, "/usr/lib/libfoo.so");
}

TEST(Records, HeaderAttrGivesTheAttrAndItsIds) {
  perf_event_attr attr{};
  attr.size = kAttrSize;
  attr.type = 1;
  attr.config = 7;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  RecordBuilder b(kHeaderAttr, 0);
  b.put(attr).put(uint64_t{0x1111}).put(uint64_t{0x2222});
  b.put_zeros(3);  // a partial id is ignored
  Bytes rec = finished(std::move(b));
  auto v = HeaderAttrView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->attr.config, 7u);
  EXPECT_EQ(v->attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  ASSERT_EQ(v->id_count(), 2u);
  EXPECT_EQ(v->id(0), 0x1111u);
  EXPECT_EQ(v->id(1), 0x2222u);
  // An attr that runs past the record is refused, with a reason.
  Bytes cut(rec.begin(), rec.begin() + 8 + 100);
  std::string why;
  EXPECT_FALSE(HeaderAttrView::parse(cut, &why));
  EXPECT_FALSE(why.empty());
}

TEST(Records, FeatureRoundTripsAndRejectsTruncatedBytes) {
  RecordBuilder b(kHeaderFeature, 0);
  b.put(uint64_t{kFeatHostname}).put_perf_string("box");
  Bytes rec = finished(std::move(b));
  auto v = FeatureView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->feat_id, kFeatHostname);
  EXPECT_EQ(v->payload.size(), rec.size() - sizeof(FeatureFixed));
  EXPECT_EQ(v->payload.data(), rec.data() + sizeof(FeatureFixed));
  expect_prefixes_rejected<FeatureView>(rec, sizeof(FeatureFixed));
}

TEST(Records, EventUpdateNameNeedsTheNameFormAndItsNul) {
  RecordBuilder b(kEventUpdate, 0);
  b.put(kEventUpdateName).put(uint64_t{42}).put_cstring("cycles:u");
  Bytes rec = finished(std::move(b));
  auto v = EventUpdateView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->id, 42u);
  ASSERT_TRUE(v->name());
  EXPECT_EQ(*v->name(), "cycles:u");
  expect_prefixes_rejected<EventUpdateView>(rec, sizeof(EventUpdateFixed));
  Bytes unterminated(rec.begin(), rec.begin() + sizeof(EventUpdateFixed) + 8);
  v = EventUpdateView::parse(unterminated);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->name());
  uint64_t unit = kEventUpdateUnit;
  std::memcpy(rec.data() + offsetof(EventUpdateFixed, type), &unit, sizeof unit);
  v = EventUpdateView::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->name());
}

TEST(Records, TrailingPayloadSizes) {
  RecordBuilder t(kHeaderTracingData, 0);
  t.put(uint32_t{4096}).put(uint32_t{0});
  Bytes rec = finished(std::move(t));
  auto td = TracingDataView::parse(rec);
  ASSERT_TRUE(td);
  EXPECT_EQ(td->size, 4096u);
  expect_prefixes_rejected<TracingDataView>(rec, 12);
  RecordBuilder a(kAuxtrace, 0);
  a.put(uint64_t{1} << 33);
  rec = finished(std::move(a));
  auto ax = AuxtraceView::parse(rec);
  ASSERT_TRUE(ax);
  EXPECT_EQ(ax->size, uint64_t{1} << 33);
  expect_prefixes_rejected<AuxtraceView>(rec, 16);
}

TEST(Records, PatchingMmap2InPlaceWritesTheBuildIdForm) {
  Bytes rec = with_trailer(build_mmap2(inode_mmap2()));
  const Bytes before = rec;
  Bytes id = id_of(20);
  ASSERT_TRUE(patch_mmap2_build_id(rec, id));
  EXPECT_EQ(rec.size(), before.size());
  auto v = Mmap2View::parse(rec);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->has_build_id());
  EXPECT_EQ(Bytes(v->build_id.begin(), v->build_id.end()), id);
  EXPECT_EQ(v->filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(v->prot, 5u);
  // The filename and the trailer are untouched.
  EXPECT_TRUE(std::equal(rec.begin() + sizeof(Mmap2Fixed), rec.end(), before.begin() + sizeof(Mmap2Fixed)));
  // Too short, or another kind: nothing is written.
  Bytes shortrec(before.begin(), before.begin() + sizeof(Mmap2Fixed) - 1);
  EXPECT_FALSE(patch_mmap2_build_id(shortrec, id));
  Bytes comm = finished(build_comm({}));
  comm.resize(sizeof(Mmap2Fixed));
  EXPECT_FALSE(patch_mmap2_build_id(comm, id));
}

// perf stat record's records: the bytes perf 6.1 writes (perf script -D on
// this machine), parsed within their bounds.
TEST(Records, StatRecordsParseAsPerfWritesThem) {
  Bytes thread_map = {0x49, 0, 0, 0, 0, 0, 0x28, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x2b, 0x1a, 0, 0,
                      0,    0, 0, 0, 't', 'r', 'u', 'e', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  auto tm = ThreadMapView::parse(thread_map);
  ASSERT_TRUE(tm);
  ASSERT_EQ(tm->count(), 1u);
  EXPECT_EQ(tm->entry(0).pid, 0x1a2bu);
  EXPECT_STREQ(tm->entry(0).comm, "true");
  expect_prefixes_rejected<ThreadMapView>(thread_map, sizeof(ThreadMapFixed));
  // A count beyond the bytes: only what is there.
  thread_map[8] = 200;
  EXPECT_EQ(ThreadMapView::parse(thread_map)->count(), 1u);

  Bytes cpus_any = {0x4a, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0xff, 0xff, 0, 0};
  EXPECT_EQ(CpuMapView::parse(cpus_any)->cpus(), std::vector<int>{-1});
  Bytes range = {0x4a, 0, 0, 0, 0, 0, 0x10, 0, 2, 0, 0, 0, 0, 0, 1, 0};  // perf 6.1's -a on 2 CPUs
  EXPECT_EQ(CpuMapView::parse(range)->cpus(), (std::vector<int>{0, 1}));
  Bytes mask64 = {0x4a, 0, 0, 0, 0, 0, 0x20, 0, 1, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0b101, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(CpuMapView::parse(mask64)->cpus(), (std::vector<int>{0, 2}));
  Bytes truncated_list = {0x4a, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 100, 0, 3, 0};
  EXPECT_EQ(CpuMapView::parse(truncated_list)->cpus(), std::vector<int>{3});
  Bytes unknown = {0x4a, 0, 0, 0, 0, 0, 0x10, 0, 9, 0};
  EXPECT_FALSE(CpuMapView::parse(unknown));

  Bytes config = {0x4b, 0, 0, 0, 0, 0, 0x40, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                  1,    0, 0, 0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  auto sc = StatConfigView::parse(config);
  ASSERT_TRUE(sc);
  ASSERT_EQ(sc->count(), 3u);
  EXPECT_EQ(sc->term(0).tag, kStatConfigAggrMode);
  EXPECT_EQ(sc->term(0).val, 1u);
  EXPECT_EQ(sc->term(2).tag, kStatConfigScale);
  expect_prefixes_rejected<StatConfigView>(config, sizeof(StatConfigFixed));

  StatRecord st{{kStat, 0, sizeof(StatRecord)}, 51, 0xffffffff, 0, 0x7ba1b, 0x7ba1b, 0x7ba1b};
  Bytes stat(sizeof st);
  std::memcpy(stat.data(), &st, sizeof st);
  auto sv = StatView::parse(stat);
  ASSERT_TRUE(sv);
  EXPECT_EQ(sv->rec.id, 51u);
  EXPECT_EQ(static_cast<int32_t>(sv->rec.cpu), -1);
  expect_prefixes_rejected<StatView>(stat, sizeof st);
  StatRoundRecord ro{{kStatRound, 0, sizeof(StatRoundRecord)}, kStatRoundFinal, 977558};
  Bytes round(sizeof ro);
  std::memcpy(round.data(), &ro, sizeof ro);
  EXPECT_EQ(StatRoundView::parse(round)->rec.time, 977558u);
  expect_prefixes_rejected<StatRoundView>(round, sizeof ro);
}

// An event's kind from its attr and name (a recording), or from its name and
// period unit (the fleet store, which keeps no attr): one rule for the
// off-CPU names either way.
TEST(EventKinds, FromTheAttrOrFromTheStore) {
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_BPF_OUTPUT;
  EXPECT_EQ(classify_event(a, kOffcpuBlockedEvent), EventKind::kOffcpuBlocked);
  EXPECT_EQ(classify_event(a, kOffcpuPreemptEvent), EventKind::kOffcpuRunnable);
  EXPECT_EQ(classify_event(a, "%sfix:plain"), EventKind::kSdtHit);
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  EXPECT_EQ(classify_event(a, "cpu-clock"), EventKind::kCpuTime);
  EXPECT_EQ(classify_stored_event(kOffcpuBlockedEvent, "nanoseconds"), EventKind::kOffcpuBlocked);
  EXPECT_EQ(classify_stored_event(kOffcpuPreemptEvent, "nanoseconds"), EventKind::kOffcpuRunnable);
  EXPECT_EQ(classify_stored_event("cpu-clock", "nanoseconds"), EventKind::kCpuTime);
  EXPECT_EQ(classify_stored_event("%sfix:plain", "events"), EventKind::kCount);
  EXPECT_EQ(classify_stored_event(kOffcpuBlockedEvent, "events"), EventKind::kCount);
}

// The names the fleet store keeps kinds by: one per kind, and back.
TEST(EventKinds, NamesRoundTrip) {
  for (EventKind k : {EventKind::kCpuTime, EventKind::kOffcpuBlocked, EventKind::kOffcpuRunnable, EventKind::kSdtHit,
                      EventKind::kTracepoint, EventKind::kCount})
    EXPECT_EQ(kind_by_name(kind_name(k)), k) << kind_name(k);
  EXPECT_EQ(kind_name(EventKind::kOffcpuBlocked), "offcpu-blocked");
  EXPECT_EQ(kind_by_name(""), std::nullopt);
  EXPECT_EQ(kind_by_name("cpu-time "), std::nullopt);
}

// READ: pid, tid, the count, then what read_format says; bounded by the bytes.
TEST(Records, ReadFollowsReadFormatAndRejectsShortBytes) {
  const uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
  Bytes rec(24 + 3 * 8);
  RecordHeader h{kRead, 0, static_cast<uint16_t>(rec.size())};
  std::memcpy(rec.data(), &h, sizeof h);
  const uint32_t pid = 41, tid = 42;
  const uint64_t vals[4] = {1234, 500, 250, 77};
  std::memcpy(rec.data() + 8, &pid, 4);
  std::memcpy(rec.data() + 12, &tid, 4);
  std::memcpy(rec.data() + 16, vals, sizeof vals);
  auto v = ReadView::parse(rec, fmt);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->pid, 41u);
  EXPECT_EQ(v->tid, 42u);
  EXPECT_EQ(v->value, 1234u);
  EXPECT_EQ(v->enabled, 500u);
  EXPECT_EQ(v->running, 250u);
  EXPECT_EQ(v->id, std::optional<uint64_t>(77));
  // Only the count: the other fields stay zero, no id.
  auto bare = ReadView::parse(rec, 0);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->enabled, 0u);
  EXPECT_FALSE(bare->id);
  // Fewer bytes than read_format asks for, a group read, another type: nothing.
  for (size_t n = 0; n < rec.size(); ++n)
    EXPECT_FALSE(ReadView::parse(std::span<const uint8_t>(rec.data(), n), fmt)) << n;
  EXPECT_FALSE(ReadView::parse(rec, fmt | PERF_FORMAT_GROUP));
  set_type(rec, kLost);
  EXPECT_FALSE(ReadView::parse(rec, fmt));
}
