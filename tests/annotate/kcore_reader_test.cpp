// annotate/kcore_reader.h on made-up kcore headers: the segments of a good
// one, one line for each bad one, and reads that one segment must hold.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>
#include <fstream>

#include "annotate/kcore_reader.h"
#include "support/test_support.h"

using namespace sonde::annotate;
using sonde::test::TempDir;

namespace {

// An ELF64 core header with `loads` PT_LOADs (vaddr, file offset, size)
// and a PT_NOTE, then `body` bytes of contents.
std::vector<uint8_t> kcore_image(const std::vector<KcoreSegment>& loads, size_t body) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_type = ET_CORE;
  eh.e_phoff = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = uint16_t(loads.size() + 1);
  std::vector<uint8_t> out(sizeof eh + eh.e_phnum * sizeof(Elf64_Phdr) + body);
  std::memcpy(out.data(), &eh, sizeof eh);
  Elf64_Phdr note{};
  note.p_type = PT_NOTE;
  std::memcpy(out.data() + sizeof eh, &note, sizeof note);
  for (size_t i = 0; i < loads.size(); ++i) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_vaddr = loads[i].vaddr, ph.p_offset = loads[i].offset, ph.p_filesz = ph.p_memsz = loads[i].size;
    std::memcpy(out.data() + sizeof eh + (i + 1) * sizeof ph, &ph, sizeof ph);
  }
  return out;
}

}  // namespace

TEST(KcoreReader, SegmentsOfAGoodHeader) {
  auto img = kcore_image({{0xffffffff81000000, 0x1000, 0x100}, {0xffffffffc0000000, 0x1100, 0x40}}, 0);
  std::string why;
  uint64_t need = 0;
  auto s = parse_kcore_segments(img, &why, &need);
  ASSERT_TRUE(s) << why;
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[1].vaddr, 0xffffffffc0000000);
  EXPECT_EQ((*s)[1].offset, 0x1100u);
}

TEST(KcoreReader, BadHeadersSayWhy) {
  std::string why;
  uint64_t need = 0;
  std::vector<uint8_t> text = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
  EXPECT_FALSE(parse_kcore_segments(text, &why, &need));
  EXPECT_EQ(why, "not a 64-bit little-endian ELF file");
  auto img = kcore_image({{0xffffffff81000000, 0x1000, 0x100}}, 0);
  auto cut = std::vector<uint8_t>(img.begin(), img.end() - 8);
  EXPECT_FALSE(parse_kcore_segments(cut, &why, &need));
  EXPECT_EQ(why, "cut inside its program headers");
  EXPECT_EQ(need, img.size());
  Elf64_Ehdr eh;
  std::memcpy(&eh, img.data(), sizeof eh);
  eh.e_phoff = ~0ull - 8;  // wraps with the headers' size
  std::memcpy(img.data(), &eh, sizeof eh);
  EXPECT_FALSE(parse_kcore_segments(img, &why, &need));
  EXPECT_NE(why.find("are not where a kcore has them"), std::string::npos) << why;
}

TEST(KcoreReader, ReadsWhatOneSegmentHolds) {
  TempDir dir;
  auto img = kcore_image({{0xffffffff81000000, 0x200, 0x10}}, 0x200);
  img.resize(0x210);
  for (size_t i = 0; i < 0x10; ++i) img[0x200 + i] = uint8_t(i);
  const std::string path = dir / "kcore";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(img.data()), std::streamsize(img.size()));
  std::string why;
  auto k = KcoreReader::open(path, &why);
  ASSERT_TRUE(k) << why;
  auto bytes = k->read(0xffffffff81000004, 4, &why);
  ASSERT_TRUE(bytes) << why;
  EXPECT_EQ(*bytes, (std::vector<uint8_t>{4, 5, 6, 7}));
  EXPECT_FALSE(k->read(0xffffffff8100000c, 8, &why));
  EXPECT_EQ(why, path + ": no segment holds 0xffffffff8100000c-0xffffffff81000014");
  EXPECT_FALSE(KcoreReader::open(dir / "none", &why));
  EXPECT_EQ(why, (dir / "none") + ": No such file or directory");
}
