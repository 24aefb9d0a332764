// AddressSpace across an exec: the kernel writes COMM (exec) before the new
// image's MMAP2s, and samples taken while it loads that image still return
// to the old image's execve. perf keeps the old mappings until new ones
// replace them; so does sonde.
#include <gtest/gtest.h>

#include "format/record_builder.h"
#include "analysis/address_space.h"

using namespace sonde::format;
using sonde::analysis::AddressSpace;
using sonde::analysis::Mapping;

namespace {

constexpr uint32_t kPid = 4242;

std::vector<uint8_t> mmap2(uint64_t start, uint64_t len, uint64_t pgoff, std::string_view path) {
  RecordBuilder b(kMmap2, kMiscUser);
  b.put(kPid).put(kPid).put(start).put(len).put(pgoff);
  b.put_zeros(24);                                 // maj, min, ino, ino_generation
  b.put(uint32_t{5}).put(uint32_t{2});             // prot r-x, flags MAP_PRIVATE
  b.put_cstring(path);
  EXPECT_TRUE(b.finish());
  return std::move(b.raw());
}

std::vector<uint8_t> comm(std::string_view name, uint16_t extra_misc) {
  RecordBuilder b(kComm, kMiscUser | extra_misc);
  b.put(kPid).put(kPid).put_cstring(name);
  EXPECT_TRUE(b.finish());
  return std::move(b.raw());
}

void feed(AddressSpace& space, const std::vector<uint8_t>& bytes) {
  RecordView v;
  std::memcpy(&v.header, bytes.data(), sizeof v.header);
  v.bytes = bytes;
  space.on_record(v);
}

std::string_view path_at(const AddressSpace& space, uint64_t addr) {
  const Mapping* m = space.find(kPid, addr, false);
  return m ? m->path : std::string_view("(none)");
}

}  // namespace

TEST(AddressSpace, AnExecKeepsTheOldImageUntilTheNewOneReplacesIt) {
  AddressSpace space;
  feed(space, comm("sh", 0));
  feed(space, mmap2(0x555500000000, 0x10000, 0, "/usr/bin/dash"));
  feed(space, mmap2(0x7f0000000000, 0x200000, 0x28000, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
  feed(space, comm("hot_loop", kMiscCommExec));
  // A sample in the old libc's execve, taken before the new image's MMAP2s.
  EXPECT_EQ(path_at(space, 0x7f0000001234), "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(space.find(kPid, 0x7f0000001234, false)->file_offset(0x7f0000001234), 0x29234u);
  EXPECT_EQ(space.comm(kPid, kPid), "hot_loop");
  // The new image's mappings replace what they overlap, and only that.
  feed(space, mmap2(0x555500004000, 0x8000, 0, "/tmp/hot_loop"));
  EXPECT_EQ(path_at(space, 0x555500004000), "/tmp/hot_loop");
  EXPECT_EQ(path_at(space, 0x555500000000), "/usr/bin/dash");
  EXPECT_EQ(path_at(space, 0x55550000c000), "/usr/bin/dash");
  feed(space, mmap2(0x7f0000100000, 0x200000, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6.new"));
  EXPECT_EQ(path_at(space, 0x7f0000001234), "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(path_at(space, 0x7f0000101234), "/usr/lib/x86_64-linux-gnu/libc.so.6.new");
}

TEST(AddressSpace, ANameChangeThatIsNotAnExecKeepsTheMappings) {
  AddressSpace space;
  feed(space, mmap2(0x400000, 0x1000, 0, "/bin/app"));
  feed(space, comm("worker", 0));
  EXPECT_EQ(path_at(space, 0x400800), "/bin/app");
  EXPECT_EQ(path_at(space, 0x401000), "(none)");
}
