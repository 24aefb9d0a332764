// The jitdump parser: records as V8 writes them, and every way a dump can be
// cut short or lie about its sizes (each with its one-line reason).
#include <gtest/gtest.h>

#include "jit/jit_files.h"
#include "jit/jitdump.h"
#include "support/jitdump_writer.h"

using sonde::jit::JitDump;
using sonde::jit::parse_jitdump;
using sonde::test::JitdumpWriter;

namespace {

JitDump parse(const JitdumpWriter& w) { return parse_jitdump(w.bytes()); }

}  // namespace

TEST(Jitdump, LoadsKeepNameAddressTimeAndTheOffsetOfTheirCode) {
  JitdumpWriter w(4242);
  w.load(100, 0x10000, 0x40, "LazyCompile:~hotLoop /app.js:1", 1).load(200, 0x10040, 0x20, "outer", 2).close(300);
  JitDump d = parse(w);
  EXPECT_EQ(d.stopped, "");
  EXPECT_EQ(d.header.pid, 4242u);
  ASSERT_EQ(d.code.size(), 2u);
  EXPECT_EQ(d.code[0].name, "LazyCompile:~hotLoop /app.js:1");
  EXPECT_EQ(d.code[0].addr, 0x10000u);
  EXPECT_EQ(d.code[0].size, 0x40u);
  EXPECT_EQ(d.code[0].time, 100u);
  // The header (40), the record's fixed part (56) and the name with its NUL.
  EXPECT_EQ(d.code[0].code_offset, 40u + 56u + 31u);
  EXPECT_EQ(w.bytes()[d.code[0].code_offset], 0xcc);
  EXPECT_EQ(d.code[1].name, "outer");
  EXPECT_EQ(d.close_time, 300u);
  EXPECT_EQ(d.records, 3u);
}

TEST(Jitdump, AMoveIsTheSameCodeAtANewAddress) {
  JitdumpWriter w(1);
  w.load(100, 0x10000, 0x40, "f", 7).move(150, 0x10000, 0x20000, 0x40, 7);
  JitDump d = parse(w);
  ASSERT_EQ(d.code.size(), 2u);
  EXPECT_TRUE(d.code[1].moved);
  EXPECT_EQ(d.code[1].addr, 0x20000u);
  EXPECT_EQ(d.code[1].name, "f");
  EXPECT_EQ(d.code[1].code_offset, d.code[0].code_offset);
  EXPECT_EQ(d.code[1].time, 150u);
}

TEST(Jitdump, DebugInfoGoesToTheNextLoadOfItsAddress) {
  JitdumpWriter w(1);
  w.debug_info(90, 0x10000, {{0x10000, 3, 1, "/app.js"}, {0x10010, 4, 5, "\xff"}}).load(100, 0x10000, 0x40, "f");
  JitDump d = parse(w);
  ASSERT_EQ(d.code.size(), 1u);
  ASSERT_EQ(d.code[0].line_count, 2u);
  const auto& l = d.lines[d.code[0].first_line + 1];
  EXPECT_EQ(l.line, 4u);
  EXPECT_EQ(l.column, 5u);
  EXPECT_EQ(l.file, "/app.js");  // "\xff" repeats the previous name
}

TEST(Jitdump, NotAJitdumpSaysWhy) {
  EXPECT_EQ(parse_jitdump({}).stopped, "at offset 0: a jitdump header is 40 bytes, the file has 0");
  JitdumpWriter w(1);
  std::vector<uint8_t> b = w.bytes();
  b[0] = 'X';
  EXPECT_EQ(parse_jitdump(b).stopped, "at offset 0: magic 0x4a695458 is not a jitdump's");
  b = w.bytes();
  std::reverse(b.begin(), b.begin() + 4);
  EXPECT_EQ(parse_jitdump(b).stopped, "at offset 0: written on a machine of the other byte order (not supported)");
  b = w.bytes();
  b[8] = 200;  // header total_size beyond the file
  EXPECT_EQ(parse_jitdump(b).stopped, "at offset 0: header size 200 outside 40..40");
}

TEST(Jitdump, LengthsAreTrustedOnlyUpToTheBytesLeft) {
  JitdumpWriter good(1);
  good.load(1, 0x1000, 8, "kept");
  const size_t at = good.bytes().size();
  {
    // A record claiming more than the file holds: what came before is kept.
    JitdumpWriter w = good;
    sonde::jit::JitRecordPrefix p{sonde::jit::kCodeLoad, 1u << 30, 2};
    w.raw(&p, sizeof p);
    JitDump d = parse(w);
    ASSERT_EQ(d.code.size(), 1u);
    EXPECT_EQ(d.code[0].name, "kept");
    EXPECT_EQ(d.stopped, "at offset " + std::to_string(at) + ": record of 1073741824 bytes with 16 left");
  }
  {
    // A load whose code_size runs past its record.
    JitdumpWriter w = good;
    sonde::jit::JitCodeLoadRecord r{};
    r.p = {sonde::jit::kCodeLoad, sizeof r + 2, 2};
    r.code_size = 1ull << 40;
    w.raw(&r, sizeof r).raw("g", 2);
    EXPECT_EQ(parse(w).stopped,
              "at offset " + std::to_string(at) + ": JIT_CODE_LOAD of 1099511627776 code bytes with 0 in the record");
  }
  {
    // A debug-info count beyond what its bytes can hold.
    JitdumpWriter w = good;
    sonde::jit::JitDebugInfoRecord r{};
    r.p = {sonde::jit::kCodeDebugInfo, sizeof r, 2};
    r.nr_entry = 1ull << 60;
    w.raw(&r, sizeof r);
    EXPECT_EQ(parse(w).stopped,
              "at offset " + std::to_string(at) + ": JIT_CODE_DEBUG_INFO claims 1152921504606846976 entries in 0 bytes");
  }
  {
    // A record smaller than its own prefix.
    JitdumpWriter w = good;
    sonde::jit::JitRecordPrefix p{sonde::jit::kCodeClose, 8, 2};
    w.raw(&p, sizeof p);
    EXPECT_EQ(parse(w).stopped, "at offset " + std::to_string(at) + ": record size 8 is below its prefix's");
  }
  {
    // A name without its NUL.
    JitdumpWriter w = good;
    sonde::jit::JitCodeLoadRecord r{};
    r.p = {sonde::jit::kCodeLoad, sizeof r + 3, 2};
    w.raw(&r, sizeof r).raw("abc", 3);
    EXPECT_EQ(parse(w).stopped, "at offset " + std::to_string(at) + ": JIT_CODE_LOAD name without its NUL");
  }
}

TEST(Jitdump, UnknownRecordsAreSkippedByTheirSize) {
  JitdumpWriter w(1);
  sonde::jit::JitRecordPrefix p{99, sizeof p + 8, 5};
  uint64_t payload = 0;
  w.raw(&p, sizeof p).raw(&payload, sizeof payload).load(6, 0x1000, 4, "after");
  JitDump d = parse(w);
  EXPECT_EQ(d.stopped, "");
  EXPECT_EQ(d.unknown_records, 1u);
  ASSERT_EQ(d.code.size(), 1u);
  EXPECT_EQ(d.code[0].name, "after");
}

TEST(JitFiles, NamesAndPids) {
  EXPECT_EQ(sonde::jit::jitdump_pid("/tmp/jit-123.dump"), 123u);
  EXPECT_EQ(sonde::jit::jitdump_pid("jit-7.dump"), 7u);
  EXPECT_FALSE(sonde::jit::jitdump_pid("/tmp/jit-.dump"));
  EXPECT_FALSE(sonde::jit::jitdump_pid("/tmp/jit-12a.dump"));
  EXPECT_FALSE(sonde::jit::jitdump_pid("/tmp/xjit-12.dump"));
  EXPECT_FALSE(sonde::jit::jitdump_pid("/tmp/jit-99999999999.dump"));
  EXPECT_EQ(sonde::jit::perf_map_pid("/tmp/perf-55.map"), 55u);
  EXPECT_EQ(sonde::jit::jit_dir_for("out/x.data"), "out/x.data.jit");
}

// Node 20's V8 writes each file name as the right number of bytes from freed
// memory, NULs included: the name ends where the next entry is plausible.
TEST(Jitdump, NamesWithNulsEndWhereTheNextEntryFits) {
  const std::string garbage("\xa7\x16\x03\0\0\0\0\0\xc8\xaa\xe6(\xe5\xc5\xa5\x93s", 17);
  std::vector<uint8_t> body;
  auto put = [&](const void* p, size_t n) {
    body.insert(body.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
  };
  for (int i = 0; i < 3; ++i) {
    sonde::jit::JitDebugEntry e{0x10040 + 8u * i, 3 + i, 1};
    put(&e, sizeof e);
    put(garbage.data(), garbage.size());
    put("", 1);
  }
  while (body.size() % 8) body.push_back(0);  // V8 pads the record to 8
  sonde::jit::JitDebugInfoRecord r{};
  r.p = {sonde::jit::kCodeDebugInfo, static_cast<uint32_t>(sizeof r + body.size()), 1};
  r.code_addr = 0x10000;
  r.nr_entry = 3;
  JitdumpWriter w(1);
  w.raw(&r, sizeof r).raw(body.data(), body.size()).load(2, 0x10000, 0x40, "JS:*f /app/x.js:2:17");
  JitDump d = parse(w);
  EXPECT_EQ(d.stopped, "");
  ASSERT_EQ(d.code.size(), 1u);
  ASSERT_EQ(d.code[0].line_count, 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    const auto& l = d.lines[d.code[0].first_line + i];
    EXPECT_EQ(l.addr, 0x10040u + 8 * i);
    EXPECT_EQ(l.line, 3 + i);
    EXPECT_EQ(l.file, "");  // not text: the reader takes the script from the code's name
  }
}
