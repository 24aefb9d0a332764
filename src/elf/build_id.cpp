#include "elf/build_id.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "util/byte_reader.h"
#include "util/fd.h"
#include "util/fs.h"

namespace sonde {

std::string BuildId::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    s[2 * i] = digits[bytes[i] >> 4];
    s[2 * i + 1] = digits[bytes[i] & 15];
  }
  return s;
}

std::optional<BuildId> BuildId::from_hex(std::string_view hex) {
  if (hex.size() < 2 || hex.size() > 40 || hex.size() % 2) return std::nullopt;
  BuildId b;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nib(hex[i]), lo = nib(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    b.bytes[i / 2] = static_cast<uint8_t>(hi << 4 | lo);
  }
  b.size = static_cast<uint8_t>(hex.size() / 2);
  return b;
}

BuildId BuildId::from_bytes(std::span<const uint8_t> src) {
  BuildId b;
  b.size = static_cast<uint8_t>(std::min<size_t>(src.size(), b.bytes.size()));
  std::memcpy(b.bytes.data(), src.data(), b.size);
  return b;
}

size_t BuildIdHash::operator()(const BuildId& b) const {
  uint64_t h;
  std::memcpy(&h, b.bytes.data(), sizeof h);  // build-ids are already hashes
  return static_cast<size_t>(h ^ b.size);
}

namespace {

bool swap_needed(const unsigned char* ident) {
  const int host = (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ? ELFDATA2LSB : ELFDATA2MSB;
  return ident[EI_DATA] != host;
}

template <typename T>
T fix(T v, bool swap) {
  if (!swap) return v;
  if constexpr (sizeof(T) == 2) return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  if constexpr (sizeof(T) == 4) return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  if constexpr (sizeof(T) == 8) return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  return v;
}

std::optional<BuildId> scan_notes(std::span<const uint8_t> notes, bool swap) {
  ByteReader r(notes);
  while (r.remaining() >= 12) {
    uint32_t namesz = 0, descsz = 0, type = 0;
    r.read(namesz), r.read(descsz), r.read(type);
    namesz = fix(namesz, swap), descsz = fix(descsz, swap), type = fix(type, swap);
    size_t name_pad = (static_cast<size_t>(namesz) + 3) & ~size_t{3};
    size_t desc_pad = (static_cast<size_t>(descsz) + 3) & ~size_t{3};
    std::span<const uint8_t> name, desc;
    if (!r.bytes(name_pad, name) || !r.bytes(desc_pad, desc)) return std::nullopt;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && std::memcmp(name.data(), "GNU", 4) == 0 && descsz > 0)
      return BuildId::from_bytes(desc.first(std::min<size_t>(descsz, 20)));
  }
  return std::nullopt;
}

bool pread_exact(int fd, void* buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd, static_cast<char*>(buf) + done, n - done, static_cast<off_t>(off + done));
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

// `read(buf, n, off)` fills buf with n bytes at offset off of the object, or
// returns false: a file read with pread, or an image already in memory.
template <typename Ehdr, typename Phdr, typename Shdr, typename Read>
std::optional<BuildId> read_notes(const Read& read, const unsigned char* ident) {
  const bool swap = swap_needed(ident);
  Ehdr eh;
  if (!read(&eh, sizeof eh, 0)) return std::nullopt;
  constexpr size_t kMaxNoteBytes = 1 << 16;
  std::vector<uint8_t> buf;
  auto try_region = [&](uint64_t off, uint64_t size) -> std::optional<BuildId> {
    if (size == 0 || size > kMaxNoteBytes) return std::nullopt;
    buf.resize(size);
    if (!read(buf.data(), size, off)) return std::nullopt;
    return scan_notes(buf, swap);
  };
  // Program headers first: they are what a loaded object is known by.
  uint16_t phnum = fix(eh.e_phnum, swap);
  uint64_t phoff = fix(eh.e_phoff, swap);
  if (phnum > 0 && phnum < 512 && fix(eh.e_phentsize, swap) == sizeof(Phdr)) {
    std::vector<Phdr> ph(phnum);
    if (read(ph.data(), phnum * sizeof(Phdr), phoff)) {
      for (const auto& p : ph)
        if (fix(p.p_type, swap) == PT_NOTE)
          if (auto id = try_region(fix(p.p_offset, swap), fix(p.p_filesz, swap))) return id;
    }
  }
  // Separate debug files keep their notes as sections without PT_NOTE.
  uint16_t shnum = fix(eh.e_shnum, swap);
  uint64_t shoff = fix(eh.e_shoff, swap);
  if (shnum > 0 && shnum < 4096 && fix(eh.e_shentsize, swap) == sizeof(Shdr)) {
    std::vector<Shdr> sh(shnum);
    if (read(sh.data(), shnum * sizeof(Shdr), shoff)) {
      for (const auto& s : sh)
        if (fix(s.sh_type, swap) == SHT_NOTE)
          if (auto id = try_region(fix(s.sh_offset, swap), fix(s.sh_size, swap))) return id;
    }
  }
  return std::nullopt;
}

template <typename Read>
std::optional<BuildId> read_object(const Read& read) {
  unsigned char ident[EI_NIDENT];
  if (!read(ident, sizeof ident, 0)) return std::nullopt;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return std::nullopt;
  if (ident[EI_CLASS] == ELFCLASS64) return read_notes<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr>(read, ident);
  if (ident[EI_CLASS] == ELFCLASS32) return read_notes<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr>(read, ident);
  return std::nullopt;
}

}  // namespace

std::optional<BuildId> read_build_id(int fd) {
  return read_object([fd](void* buf, size_t n, uint64_t off) { return pread_exact(fd, buf, n, off); });
}

std::optional<BuildId> read_build_id(std::span<const uint8_t> image) {
  return read_object([image](void* buf, size_t n, uint64_t off) {
    if (off > image.size() || n > image.size() - off) return false;
    std::memcpy(buf, image.data() + off, n);
    return true;
  });
}

std::optional<BuildId> read_build_id(const std::string& path) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) return std::nullopt;
  return read_build_id(fd.get());
}

std::optional<BuildId> find_build_id_in_notes(std::span<const uint8_t> notes) { return scan_notes(notes, false); }

std::optional<BuildId> read_build_id_from_notes_file(const std::string& path) {
  auto text = read_small_file(path);
  if (!text) return std::nullopt;
  return find_build_id_in_notes({reinterpret_cast<const uint8_t*>(text->data()), text->size()});
}

}  // namespace sonde
