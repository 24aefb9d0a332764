// perf_event_attr of every size perf has written (VER0 64 bytes .. VER8 136
// bytes, and larger with a zero tail): the same recording, its attr written
// at each size, reads the same in `sonde script`, in pipe and file mode; an
// attr sonde cannot read is a one-line error. perf 6.1 is the reference for
// which sizes a reader accepts (docs/format.md).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/stream_writer.h"
#include "support/synthetic_stream.h"
#include "support/test_support.h"

using namespace sonde::format;
using sonde::test::AttrLayout;
using sonde::test::run;
using sonde::test::SyntheticStream;
using sonde::test::TempDir;

namespace {

// Every size of perf_event_attr so far, then a larger one from a future
// kernel whose extra fields are all zero (readable, as the kernel rules).
const uint32_t kSizes[] = {kPerfAttrSizeVer0, kPerfAttrSizeVer1, kPerfAttrSizeVer2,
                           kPerfAttrSizeVer3, kPerfAttrSizeVer4, kPerfAttrSizeVer5,
                           kPerfAttrSizeVer6, kPerfAttrSizeVer7, kPerfAttrSizeVer8,
                           kPerfAttrSizeVer8 + 8};

constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
constexpr uint32_t kPid = 4242;

std::vector<uint8_t> comm_record() {
  RecordBuilder b(kComm, 0);
  b.put(kPid).put(kPid).put_cstring("attrsize");
  b.put(kPid).put(kPid).put(uint64_t{1000}).put(uint32_t{0}).put(uint32_t{0}).put(SyntheticStream::kEventId);
  b.finish();
  return {b.bytes().begin(), b.bytes().end()};
}

std::vector<uint8_t> sample_record(uint64_t ip, uint64_t time) {
  RecordBuilder b(kSample, kMiscUser);
  b.put(SyntheticStream::kEventId).put(ip).put(kPid).put(kPid).put(time);
  b.put(uint32_t{1}).put(uint32_t{0}).put(uint64_t{250000});
  b.finish();
  return {b.bytes().begin(), b.bytes().end()};
}

// The data of every stream: a COMM and three samples.
std::vector<std::vector<uint8_t>> data_records() {
  return {comm_record(), sample_record(0x401000, 2000), sample_record(0x401010, 3000),
          sample_record(0x7f0000001234, 4000)};
}

void write_pipe_stream(const std::string& path, const AttrLayout& layout) {
  SyntheticStream s(path, kSampleType, layout);
  for (const auto& r : data_records()) s.writer().write_record(r);
  s.writer().write_finished_round();
  s.close();
}

// The same recording in file mode, its attrs section entries `attr_size`
// bytes of attr plus the id section, as perf's read_attr steps through them.
void write_file_mode_stream(const std::string& path, uint32_t attr_size) {
  std::vector<uint8_t> data;
  for (const auto& r : data_records()) data.insert(data.end(), r.begin(), r.end());
  FileHeader h{};
  h.magic = kMagic;
  h.size = kFileHeaderSize;
  h.attr_size = attr_size + sizeof(FileSection);
  h.data = {kFileHeaderSize, data.size()};
  const uint64_t ids_at = kFileHeaderSize + data.size();
  h.attrs = {ids_at + 8, h.attr_size};
  std::vector<uint8_t> attr(attr_size, 0);
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_type = kSampleType;
  a.sample_id_all = 1;
  a.size = attr_size;
  std::memcpy(attr.data(), &a, std::min<size_t>(attr_size, sizeof a));
  const FileSection ids{ids_at, 8};
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.write(reinterpret_cast<const char*>(&SyntheticStream::kEventId), 8);
  out.write(reinterpret_cast<const char*>(attr.data()), static_cast<std::streamsize>(attr.size()));
  out.write(reinterpret_cast<const char*>(&ids), sizeof ids);
  ASSERT_TRUE(out.good());
}

std::string sonde_script(const std::string& path) {
  auto r = run({sonde::test::sonde_bin(), "script", "-i", path});
  EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  return r.out;
}

bool have_perf() { return run({"perf", "--version"}).exit_code == 0; }

std::string perf_script(const std::string& path, int* exit_code) {
  auto r = run({"perf", "script", "-i", path});
  *exit_code = r.exit_code;
  return r.out;
}

// One line on stderr, exit 1, naming the problem.
void expect_one_line_error(const std::string& path, const std::string& needle) {
  auto r = run({sonde::test::sonde_bin(), "script", "-i", path});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(sonde::test::lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

}  // namespace

TEST(AttrSizes, EverySizePerfHasWrittenGivesTheSameScript) {
  TempDir dir;
  write_pipe_stream(dir / "ref.data", {kPerfAttrSizeVer7, {}});
  const std::string ref = sonde_script(dir / "ref.data");
  // The reference is the recording, not an empty or partial reading.
  ASSERT_EQ(sonde::test::count_lines_with(ref, "attrsize"), 3u) << ref;
  EXPECT_EQ(sonde::test::count_lines_with(ref, "cpu-clock"), 3u) << ref;
  EXPECT_EQ(sonde::test::count_lines_with(ref, "7f0000001234"), 1u) << ref;
  for (uint32_t size : kSizes) {
    const std::string path = dir / ("pipe" + std::to_string(size) + ".data");
    write_pipe_stream(path, {size, {}});
    EXPECT_EQ(sonde_script(path), ref) << "pipe mode, attr of " << size << " bytes";
  }
  // attr.size 0 is VER0, for the kernel and for perf.
  write_pipe_stream(dir / "pipe0.data", {0, {}});
  EXPECT_EQ(sonde_script(dir / "pipe0.data"), ref);
}

TEST(AttrSizes, FileModeEntriesOfEverySizeGiveTheSameScript) {
  TempDir dir;
  write_pipe_stream(dir / "ref.data", {kPerfAttrSizeVer7, {}});
  const std::string ref = sonde_script(dir / "ref.data");
  ASSERT_EQ(sonde::test::count_lines_with(ref, "attrsize"), 3u) << ref;
  for (uint32_t size : kSizes) {
    const std::string path = dir / ("file" + std::to_string(size) + ".data");
    write_file_mode_stream(path, size);
    EXPECT_EQ(sonde_script(path), ref) << "file mode, attr of " << size << " bytes";
  }
}

// What perf 6.1 (/usr/bin/perf) makes of the same streams, so that what sonde
// writes stays readable by it: in pipe mode it reads every size (ids are
// found by attr.size), 144 bytes with a zero tail included; in file mode it
// refuses an attr larger than its own 128 bytes ("unsupported ABI"), which is
// why sonde's file-mode writer stays at 128 bytes when config3 is 0.
TEST(AttrSizes, PerfReadsEveryPipeSizeAndFileModeUpToItsOwn) {
  if (!have_perf()) GTEST_SKIP() << "perf is not installed";
  TempDir dir;
  // References: perf's own size in each mode (a file-mode stream has no
  // EVENT_UPDATE name, so perf names its event differently there).
  write_pipe_stream(dir / "ref.data", {kPerfAttrSizeVer7, {}});
  write_file_mode_stream(dir / "ref-file.data", kPerfAttrSizeVer7);
  int rc = -1;
  const std::string ref = perf_script(dir / "ref.data", &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(sonde::test::count_lines_with(ref, "attrsize"), 3u) << ref;
  const std::string ref_file = perf_script(dir / "ref-file.data", &rc);
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(sonde::test::count_lines_with(ref_file, "attrsize"), 3u) << ref_file;
  for (uint32_t size : kSizes) {
    const std::string pipe = dir / ("pipe" + std::to_string(size) + ".data");
    write_pipe_stream(pipe, {size, {}});
    EXPECT_EQ(perf_script(pipe, &rc), ref) << "pipe mode, attr of " << size << " bytes";
    EXPECT_EQ(rc, 0);
    const std::string file = dir / ("file" + std::to_string(size) + ".data");
    write_file_mode_stream(file, size);
    const std::string out = perf_script(file, &rc);
    if (size <= kPerfAttrSizeVer7) {
      EXPECT_EQ(out, ref_file) << "file mode, attr of " << size << " bytes";
      EXPECT_EQ(rc, 0);
    } else {
      EXPECT_NE(rc, 0) << "perf 6.1 now reads file-mode attrs of " << size << " bytes: update docs/format.md";
    }
  }
}

TEST(AttrSizes, FieldsPastWhatSondeKnowsAreAOneLineError) {
  TempDir dir;
  // A 144-byte attr whose last 8 bytes are a field of a future kernel.
  const std::string path = dir / "future.data";
  write_pipe_stream(path, {kPerfAttrSizeVer8 + 8, {0, 0, 0, 1, 0, 0, 0, 0}});
  expect_one_line_error(path, "sets fields past the 136 bytes of perf_event_attr sonde knows");
}

TEST(AttrSizes, ImpossibleSizesAreAOneLineError) {
  TempDir dir;
  auto write_raw_attr = [&](const std::string& path, uint32_t size_field) {
    SyntheticStream s(path, kSampleType);  // a valid attr first, then the bad one
    perf_event_attr a{};
    a.type = PERF_TYPE_SOFTWARE;
    a.size = size_field;
    RecordBuilder b(kHeaderAttr, 0);
    b.put(a).put(uint64_t{8});
    ASSERT_TRUE(b.finish());
    s.writer().write_record(b.bytes());
    s.close();
  };
  write_raw_attr(dir / "small.data", 32);
  expect_one_line_error(dir / "small.data", "attr size 32 is smaller than the first perf_event_attr (64 bytes)");
  write_raw_attr(dir / "long.data", 400);
  expect_one_line_error(dir / "long.data", "attr size 400 runs past its record (144 bytes)");
}

// sonde writes the size it was given (the recorder: what the kernel
// accepted), and the whole struct when the size is not set.
TEST(AttrSizes, TheWriterKeepsTheAttrsSize) {
  TempDir dir;
  for (uint32_t size : {uint32_t{0}, kPerfAttrSizeVer0, kPerfAttrSizeVer7, kPerfAttrSizeVer8}) {
    const std::string path = dir / "w.data";
    write_pipe_stream(path, {size, {}});
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    ASSERT_GE(bytes.size(), kPipeHeaderSize + 16);
    RecordHeader h;
    uint32_t written;
    std::memcpy(&h, bytes.data() + kPipeHeaderSize, sizeof h);
    std::memcpy(&written, bytes.data() + kPipeHeaderSize + sizeof h + 4, 4);
    const uint32_t expected = size == 0 ? kPerfAttrSizeVer8 : size;
    EXPECT_EQ(h.type, kHeaderAttr);
    EXPECT_EQ(written, expected);
    EXPECT_EQ(h.size, sizeof h + expected + 8) << "attr then one id";
  }
}
