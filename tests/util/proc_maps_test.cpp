// parse_maps_line on the lines /proc/PID/maps really shows, odd ones included.
#include "util/proc_maps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

namespace sonde {
namespace {

MapsLine parse(std::string_view line) {
  auto m = parse_maps_line(line);
  EXPECT_TRUE(m) << line;
  return m.value_or(MapsLine{});
}

TEST(ProcMaps, FileMapping) {
  auto m = parse("7f3a00000000-7f3a00021000 r-xp 00002000 08:01 1234567                    /usr/lib/libc.so.6");
  EXPECT_EQ(m.start, 0x7f3a00000000u);
  EXPECT_EQ(m.end, 0x7f3a00021000u);
  EXPECT_EQ(m.perms, "r-xp");
  EXPECT_TRUE(m.readable());
  EXPECT_FALSE(m.writable());
  EXPECT_TRUE(m.executable());
  EXPECT_FALSE(m.shared());
  EXPECT_EQ(m.offset, 0x2000u);
  EXPECT_EQ(m.dev_major, 8u);
  EXPECT_EQ(m.dev_minor, 1u);
  EXPECT_EQ(m.inode, 1234567u);
  EXPECT_EQ(m.path, "/usr/lib/libc.so.6");
  EXPECT_TRUE(m.is_path());
  EXPECT_FALSE(m.deleted());
}

TEST(ProcMaps, HexDeviceNumbers) {
  auto m = parse("00400000-00401000 rw-s 00000000 fd:1a 42 /dev/shm/x");
  EXPECT_EQ(m.dev_major, 0xfdu);
  EXPECT_EQ(m.dev_minor, 0x1au);
  EXPECT_TRUE(m.shared());
  EXPECT_TRUE(m.writable());
}

TEST(ProcMaps, DeletedFileKeepsItsMarker) {
  auto m = parse("7f0000000000-7f0000001000 r-xp 00000000 08:01 99 /tmp/a.out (deleted)");
  EXPECT_EQ(m.path, "/tmp/a.out (deleted)");
  EXPECT_TRUE(m.deleted());
  EXPECT_TRUE(m.is_path());
}

TEST(ProcMaps, SpacesInNamesAreKept) {
  auto m = parse("7f0000000000-7f0000001000 r-xp 00000000 08:01 99     /opt/my app/lib  x.so");
  EXPECT_EQ(m.path, "/opt/my app/lib  x.so");
}

TEST(ProcMaps, PseudoPaths) {
  EXPECT_EQ(parse("7ffd1c5f3000-7ffd1c5f5000 r-xp 00000000 00:00 0                          [vdso]").path, "[vdso]");
  auto anon = parse("7f0000000000-7f0000001000 rw-p 00000000 00:00 0    [anon:scudo:primary]");
  EXPECT_EQ(anon.path, "[anon:scudo:primary]");
  EXPECT_FALSE(anon.is_path());
  EXPECT_EQ(parse("55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0   [heap]").path, "[heap]");
}

TEST(ProcMaps, Memfd) {
  auto m = parse("7f0000000000-7f0000001000 r-xp 00000000 00:01 2051 /memfd:jit-code (deleted)");
  EXPECT_EQ(m.path, "/memfd:jit-code (deleted)");
  EXPECT_TRUE(m.deleted());
  EXPECT_EQ(m.dev_minor, 1u);
  EXPECT_EQ(m.inode, 2051u);
}

TEST(ProcMaps, AnonymousMappingHasNoPath) {
  EXPECT_EQ(parse("7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ").path, "");
  EXPECT_EQ(parse("7f0000000000-7f0000001000 rw-p 00000000 00:00 0").path, "");
}

TEST(ProcMaps, GarbageIsRejected) {
  for (const char* bad : {
           "",
           "hello world",
           "7f0000000000 r-xp 00000000 08:01 99 /x",               // no END
           "7f0000000000-zz r-xp 00000000 08:01 99 /x",            // END not hex
           "7f0000001000-7f0000000000 r-xp 00000000 08:01 99 /x",  // END before START
           "7f0000000000-7f0000001000 rxp 00000000 08:01 99 /x",   // perms
           "7f0000000000-7f0000001000 r-xq 00000000 08:01 99 /x",  // perms
           "7f0000000000-7f0000001000 r-xp 0000zz00 08:01 99 /x",  // offset
           "7f0000000000-7f0000001000 r-xp 00000000 0801 99 /x",   // device
           "7f0000000000-7f0000001000 r-xp 00000000 08:01 /x",     // no inode
           "7f0000000000-7f0000001000 r-xp 00000000 08:01",        // cut short
           "0x7f0000000000-7f0000001000 r-xp 00000000 08:01 99 /x",
       })
    EXPECT_FALSE(parse_maps_line(bad)) << bad;
}

TEST(ProcMaps, ForEachSkipsBadLinesAndHandlesNoFinalNewline) {
  std::vector<std::string> paths;
  const char* text =
      "00400000-00401000 r-xp 00000000 08:01 1 /a\n"
      "garbage\n"
      "\n"
      "00500000-00501000 r--p 00000000 08:01 2 /b";  // no final newline
  for_each_maps_line(text, [&](const MapsLine& m) { paths.emplace_back(m.path); });
  EXPECT_EQ(paths, (std::vector<std::string>{"/a", "/b"}));
}

TEST(ProcMaps, ReadsThisProcess) {
  auto text = read_proc_maps(0);
  ASSERT_TRUE(text);
  size_t lines = 0, parsed = 0;
  bool saw_stack = false;
  for (char c : *text) lines += c == '\n';
  for_each_maps_line(*text, [&](const MapsLine& m) {
    ++parsed;
    saw_stack |= m.path == "[stack]";
  });
  EXPECT_EQ(parsed, lines);  // every real line parses
  EXPECT_TRUE(saw_stack);
  EXPECT_TRUE(read_proc_maps(::getpid()));
}

}  // namespace
}  // namespace sonde
