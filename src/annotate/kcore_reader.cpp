#include "annotate/kcore_reader.h"

#include <elf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace sonde::annotate {

namespace {

// The header and program headers of /proc/kcore are a few KiB (one
// segment per memory range); more than this is not a kcore.
constexpr uint64_t kMaxHeadBytes = 1 << 20;
// One symbol's code: kernel functions are at most a few hundred KiB.
constexpr uint64_t kMaxReadBytes = 16 << 20;

template <typename T>
T load(std::span<const uint8_t> bytes, uint64_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

}  // namespace

std::optional<std::vector<KcoreSegment>> parse_kcore_segments(std::span<const uint8_t> head, std::string* why,
                                                             uint64_t* need) {
  *need = 0;
  if (head.size() < sizeof(Elf64_Ehdr) || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0 ||
      head[EI_CLASS] != ELFCLASS64 || head[EI_DATA] != ELFDATA2LSB) {
    *why = "not a 64-bit little-endian ELF file";
    return std::nullopt;
  }
  const auto eh = load<Elf64_Ehdr>(head, 0);
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM) {
    *why = fmt::format("no program headers of the expected size (e_phnum {}, e_phentsize {})", eh.e_phnum,
                       eh.e_phentsize);
    return std::nullopt;
  }
  const uint64_t end = uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
  if (eh.e_phoff > kMaxHeadBytes || end > kMaxHeadBytes - eh.e_phoff) {
    *why = fmt::format("program headers at {:#x} ({} of them) are not where a kcore has them", eh.e_phoff, eh.e_phnum);
    return std::nullopt;
  }
  if (eh.e_phoff + end > head.size()) {
    *why = "cut inside its program headers";
    *need = eh.e_phoff + end;
    return std::nullopt;
  }
  std::vector<KcoreSegment> out;
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    const auto ph = load<Elf64_Phdr>(head, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type != PT_LOAD || ph.p_filesz == 0) continue;
    if (ph.p_vaddr + ph.p_filesz < ph.p_vaddr || ph.p_offset + ph.p_filesz < ph.p_offset) continue;  // wraps
    out.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
  }
  return out;
}

std::unique_ptr<KcoreReader> KcoreReader::open(const std::string& path, std::string* why) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) {
    *why = fmt::format("{}: {}", path, errno_text(errno));
    return nullptr;
  }
  std::vector<uint8_t> head(4096);
  for (;;) {
    ssize_t n = ::pread(fd.get(), head.data(), head.size(), 0);
    if (n < 0) {
      *why = fmt::format("{}: {}", path, errno_text(errno));
      return nullptr;
    }
    const bool short_file = size_t(n) < head.size();
    head.resize(size_t(n));
    uint64_t need = 0;
    std::string reason;
    auto segments = parse_kcore_segments(head, &reason, &need);
    if (!segments && need > head.size() && !short_file) {
      head.resize(need);  // bounded by kMaxHeadBytes in the parser
      continue;
    }
    if (!segments) {
      *why = fmt::format("{}: {}", path, reason);
      return nullptr;
    }
    auto r = std::unique_ptr<KcoreReader>(new KcoreReader());
    r->path_ = path;
    r->fd_ = std::move(fd);
    r->segments_ = std::move(*segments);
    return r;
  }
}

std::optional<std::vector<uint8_t>> KcoreReader::read(uint64_t addr, uint64_t size, std::string* why) const {
  if (size == 0 || size > kMaxReadBytes) {
    *why = fmt::format("{} bytes is not a function's size", size);
    return std::nullopt;
  }
  for (const auto& s : segments_) {
    if (addr < s.vaddr || addr - s.vaddr > s.size || size > s.size - (addr - s.vaddr)) continue;
    std::vector<uint8_t> out(size);
    const uint64_t at = s.offset + (addr - s.vaddr);
    size_t got = 0;
    while (got < size) {
      ssize_t n = ::pread(fd_.get(), out.data() + got, size - got, off_t(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *why = fmt::format("{}: reading {:#x}: {}", path_, addr + got, n < 0 ? errno_text(errno) : "end of file");
        return std::nullopt;
      }
      got += size_t(n);
    }
    return out;
  }
  *why = fmt::format("{}: no segment holds {:#x}-{:#x}", path_, addr, addr + size);
  return std::nullopt;
}

}  // namespace sonde::annotate
