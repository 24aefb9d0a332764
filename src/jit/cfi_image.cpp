#include "jit/cfi_image.h"

#include <elf.h>

#include <cstring>
#include <string_view>

namespace sonde::jit {

namespace {

constexpr std::string_view kNames = std::string_view("\0.eh_frame\0.eh_frame_hdr\0.shstrtab\0", 35);
constexpr uint32_t kEhFrameName = 1, kEhFrameHdrName = 11, kShstrtabName = 25;
constexpr uint64_t kPhdrCount = 3, kShdrCount = 4;
constexpr uint64_t kTablesAt = sizeof(Elf64_Ehdr) + kPhdrCount * sizeof(Elf64_Phdr);  // 8-aligned

uint64_t align8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

template <typename T>
void put(std::vector<uint8_t>& image, uint64_t at, const T& v) {
  std::memcpy(image.data() + at, &v, sizeof v);
}

Elf64_Phdr segment(uint32_t type, uint64_t offset, uint64_t vaddr, uint64_t filesz, uint64_t memsz, uint64_t align) {
  Elf64_Phdr p{};
  p.p_type = type;
  p.p_flags = PF_R;
  p.p_offset = offset;
  p.p_vaddr = p.p_paddr = vaddr;
  p.p_filesz = filesz;
  p.p_memsz = memsz;
  p.p_align = align;
  return p;
}

Elf64_Shdr section(uint32_t name, uint32_t type, uint64_t flags, uint64_t addr, uint64_t offset, uint64_t size,
                   uint64_t align) {
  Elf64_Shdr s{};
  s.sh_name = name;
  s.sh_type = type;
  s.sh_flags = flags;
  s.sh_addr = addr;
  s.sh_offset = offset;
  s.sh_size = size;
  s.sh_addralign = align;
  return s;
}

Elf64_Ehdr header(uint64_t shoff) {
  Elf64_Ehdr h = x86_64_elf_header(ET_DYN);
  h.e_phoff = sizeof(Elf64_Ehdr);
  h.e_shoff = shoff;
  h.e_phentsize = sizeof(Elf64_Phdr);
  h.e_phnum = kPhdrCount;
  h.e_shentsize = sizeof(Elf64_Shdr);
  h.e_shnum = kShdrCount;
  h.e_shstrndx = kShdrCount - 1;
  return h;
}

}  // namespace

std::vector<uint8_t> cfi_elf_image(const JitUnwindInfo& info) {
  const uint64_t eh_at = align8(info.code_size);  // vaddr of .eh_frame, right after the code
  const uint64_t frame = info.eh_frame.size(), hdr = info.eh_frame_hdr.size();
  // The tables' file offset must agree with their vaddr modulo the
  // segment's alignment (8): both are 8-aligned.
  const uint64_t names_at = kTablesAt + frame + hdr;
  const uint64_t shoff = align8(names_at + kNames.size());
  std::vector<uint8_t> image(shoff + kShdrCount * sizeof(Elf64_Shdr));
  put(image, 0, header(shoff));
  const Elf64_Phdr phdrs[kPhdrCount] = {
      segment(PT_LOAD, 0, 0, 0, eh_at, 8),  // the code: addresses only
      segment(PT_LOAD, kTablesAt, eh_at, frame + hdr, frame + hdr, 8),
      segment(PT_GNU_EH_FRAME, kTablesAt + frame, eh_at + frame, hdr, hdr, 4),
  };
  for (uint64_t i = 0; i < kPhdrCount; ++i) put(image, sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr), phdrs[i]);
  std::memcpy(image.data() + kTablesAt, info.eh_frame.data(), frame);
  std::memcpy(image.data() + kTablesAt + frame, info.eh_frame_hdr.data(), hdr);
  std::memcpy(image.data() + names_at, kNames.data(), kNames.size());
  const Elf64_Shdr shdrs[kShdrCount] = {
      Elf64_Shdr{},
      section(kEhFrameName, SHT_PROGBITS, SHF_ALLOC, eh_at, kTablesAt, frame, 8),
      section(kEhFrameHdrName, SHT_PROGBITS, SHF_ALLOC, eh_at + frame, kTablesAt + frame, hdr, 4),
      section(kShstrtabName, SHT_STRTAB, 0, 0, names_at, kNames.size(), 1),
  };
  for (uint64_t i = 0; i < kShdrCount; ++i) put(image, shoff + i * sizeof(Elf64_Shdr), shdrs[i]);
  return image;
}

Elf64_Ehdr x86_64_elf_header(uint16_t type) {
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = type;
  h.e_machine = EM_X86_64;
  h.e_version = EV_CURRENT;
  h.e_ehsize = sizeof(Elf64_Ehdr);
  return h;
}

}  // namespace sonde::jit
