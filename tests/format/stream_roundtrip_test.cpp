#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "format/features.h"
#include "format/record_builder.h"
#include "format/session.h"
#include "format/stream_reader.h"
#include "format/stream_writer.h"
#include "support/test_support.h"
#include "util/error.h"

using namespace sonde::format;
using sonde::test::TempDir;

namespace {

perf_event_attr sampling_attr() {
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  a.sample_id_all = 1;
  return a;
}

// Writes: header, attr, hostname feature, end marker, name, COMM, one sample.
void write_small_stream(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  StreamWriter w(fd);
  w.write_pipe_header();
  uint64_t ids[] = {7};
  w.write_attr(sampling_attr(), ids);
  FeatureEncoder host;
  host.string("testhost");
  w.write_feature(kFeatHostname, host.bytes());
  w.write_features_end();
  w.write_event_update_name(7, "cpu-clock");
  RecordBuilder comm(kComm, 0);
  comm.put(uint32_t{42}).put(uint32_t{42}).put_cstring("worker");
  comm.put(uint32_t{42}).put(uint32_t{42}).put(uint64_t{100}).put(uint64_t{7});  // trailer: tid time identifier
  ASSERT_TRUE(comm.finish());
  w.write_record(comm.bytes());
  RecordBuilder s(kSample, kMiscUser);
  s.put(uint64_t{7}).put(uint64_t{0x401000}).put(uint32_t{42}).put(uint32_t{43}).put(uint64_t{200});
  s.put(uint64_t{250000});
  s.put(uint64_t{2}).put(kContextUser).put(uint64_t{0x401000});
  ASSERT_TRUE(s.finish());
  w.write_record(s.bytes());
  w.write_finished_round();
  w.flush();
}

}  // namespace

TEST(Stream, WrittenRecordsReadBackWithTheirMeaning) {
  TempDir dir;
  std::string path = dir / "s.data";
  write_small_stream(path);
  auto reader = open_recording(path);
  Session session;
  RecordView rec;
  int samples = 0, comms = 0;
  while (reader->next(rec)) {
    if (session.observe(rec)) continue;
    if (rec.header.type == kSample) {
      Sample s;
      std::string why;
      ASSERT_TRUE(session.decode_sample(rec, s, &why)) << why;
      EXPECT_EQ(s.ip, 0x401000u);
      EXPECT_EQ(s.pid, 42u);
      EXPECT_EQ(s.tid, 43u);
      EXPECT_EQ(s.period, 250000u);
      ASSERT_EQ(s.callchain_size(), 2u);
      EXPECT_EQ(s.callchain_at(0), kContextUser);
      EXPECT_EQ(s.event->name, "cpu-clock");
      ++samples;
    } else if (rec.header.type == kComm) {
      SampleId sid;
      ASSERT_TRUE(session.decode_sample_id(rec, sid));
      EXPECT_EQ(sid.time, 100u);
      EXPECT_EQ(sid.id, 7u);
      ++comms;
    }
  }
  EXPECT_EQ(samples, 1);
  EXPECT_EQ(comms, 1);
  EXPECT_EQ(reader->truncated_bytes(), 0u);
  EXPECT_EQ(reader->error(), "");
  EXPECT_EQ(session.feature_string(kFeatHostname).value_or(""), "testhost");
}

TEST(Stream, TruncatedTailStopsCleanlyAndIsCounted) {
  TempDir dir;
  std::string path = dir / "s.data";
  write_small_stream(path);
  auto size = std::filesystem::file_size(path);
  // Cut inside the sample record (the last 8 bytes are FINISHED_ROUND).
  std::filesystem::resize_file(path, size - 8 - 5);
  auto reader = open_recording(path);
  RecordView rec;
  int records = 0;
  bool saw_sample = false;
  while (reader->next(rec)) {
    ++records;
    saw_sample |= rec.header.type == kSample;
  }
  EXPECT_FALSE(saw_sample);
  EXPECT_EQ(records, 5);  // attr, 2 features, name, comm: every complete one
  EXPECT_GT(reader->truncated_bytes(), 0u);
  EXPECT_EQ(reader->error(), "");
}

TEST(Stream, BadMagicIsOneClearError) {
  TempDir dir;
  std::string path = dir / "bad.data";
  std::ofstream(path) << "NOTPERF!xxxxxxxxxxxxxxxx";
  try {
    open_recording(path);
    FAIL() << "expected an error";
  } catch (const sonde::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a perf.data recording"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 1);
  }
}

TEST(Stream, EmptyAndMissingInputsAreClearErrors) {
  TempDir dir;
  std::string empty = dir / "empty.data";
  std::ofstream(empty).flush();
  EXPECT_THROW(open_recording(empty), sonde::Error);
  EXPECT_THROW(open_recording(dir / "missing.data"), sonde::Error);
}

TEST(Stream, RecordSmallerThanItsHeaderIsAnError) {
  TempDir dir;
  std::string path = dir / "s.data";
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    StreamWriter w(fd);
    w.write_pipe_header();
    RecordHeader h{kComm, 0, 4};
    w.write_record(&h, sizeof h);
  }
  auto reader = open_recording(path);
  RecordView rec;
  EXPECT_FALSE(reader->next(rec));
  EXPECT_NE(reader->error().find("bad record header size 4"), std::string::npos) << reader->error();
}

TEST(Stream, SampleOverrunningItsRecordIsRejected) {
  Session session;
  RecordBuilder attr(kHeaderAttr, 0);
  attr.put(sampling_attr()).put(uint64_t{7});
  attr.finish();
  RecordView av{{kHeaderAttr, 0, static_cast<uint16_t>(attr.size())}, attr.bytes(), {}, 0};
  ASSERT_TRUE(session.observe(av));
  RecordBuilder s(kSample, kMiscUser);
  s.put(uint64_t{7}).put(uint64_t{1}).put(uint32_t{1}).put(uint32_t{1}).put(uint64_t{1}).put(uint64_t{1});
  s.put(uint64_t{1000});  // callchain nr far beyond the record
  s.finish();
  RecordView sv{{kSample, kMiscUser, static_cast<uint16_t>(s.size())}, s.bytes(), {}, 0};
  Sample out;
  std::string why;
  EXPECT_FALSE(session.decode_sample(sv, out, &why));
  EXPECT_EQ(why, "sample callchain overruns the record");
}

#include "format/tracepoint_format.h"

TEST(TracepointFormat, FieldNamesAndValuesLikePerfScript) {
  const char* text =
      "name: sched_process_exec\nID: 313\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
      "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
      "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
      "\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n";
  TracepointFormat f;
  ASSERT_TRUE(parse_tracepoint_format(text, "sched", f));
  EXPECT_EQ(f.id, 313u);
  ASSERT_EQ(f.fields.size(), 3u);
  EXPECT_EQ(f.fields[0].name, "filename");
  EXPECT_TRUE(f.fields[0].is_data_loc);
  EXPECT_EQ(f.fields[1].name, "pid");
  EXPECT_EQ(f.fields[2].name, "comm");
  EXPECT_TRUE(f.fields[2].is_string);
  std::vector<uint8_t> raw(40, 0);
  uint32_t loc = (6u << 16) | 32u;  // "/bin\0" at 32, 6 bytes
  std::memcpy(raw.data() + 8, &loc, 4);
  int32_t pid = -7;
  std::memcpy(raw.data() + 12, &pid, 4);
  std::memcpy(raw.data() + 16, "ls", 3);
  std::memcpy(raw.data() + 32, "/bin/x", 6);
  EXPECT_EQ(format_tracepoint_fields(f, raw), "filename=/bin/x pid=-7 comm=ls");
  // A data_loc pointing past the payload prints "?" instead of reading out of bounds.
  loc = (200u << 16) | 32u;
  std::memcpy(raw.data() + 8, &loc, 4);
  EXPECT_EQ(format_tracepoint_fields(f, raw), "filename=? pid=-7 comm=ls");
}
