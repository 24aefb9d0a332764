#include "elf/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "util/error.h"
#include "util/fd.h"

namespace sonde {

namespace {

void ensure_libelf() {
  // elf_version() must be called once before any other libelf function.
  static const bool ok = elf_version(EV_CURRENT) != EV_NONE;
  (void)ok;
}

std::optional<BuildId> build_id_from_note_data(Elf_Data* data) {
  if (!data || !data->d_buf) return std::nullopt;
  size_t off = 0;
  GElf_Nhdr nh;
  size_t name_off = 0, desc_off = 0;
  while (off < data->d_size &&
         (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && desc_off + nh.n_descsz <= data->d_size &&
        std::memcmp(static_cast<const char*>(data->d_buf) + name_off, "GNU", 4) == 0 &&
        nh.n_descsz >= 2) {
      return BuildId::from_bytes({static_cast<const uint8_t*>(data->d_buf) + desc_off,
                                  std::min<size_t>(nh.n_descsz, 20)});
    }
  }
  return std::nullopt;
}

}  // namespace

std::unique_ptr<ElfFile> ElfFile::open(const std::string& path, std::string* reason) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) {
    if (reason) *reason = fmt::format("{}: {}", path, errno == EINVAL ? "not a regular file" : errno_text(errno));
    return nullptr;
  }
  return from_fd(std::move(fd), path, reason);
}

std::unique_ptr<ElfFile> ElfFile::from_fd(UniqueFd fd, std::string path, std::string* reason, bool* not_elf) {
  ensure_libelf();
  std::unique_ptr<ElfFile> f(new ElfFile);
  f->path_ = std::move(path);
  // ELF_C_READ_MMAP: pages are shared with the page cache and other mappings
  // of the binary, so indexing a large library costs little memory.
  f->elf_ = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  f->fd_ = fd.release();
  if (!f->init(reason, not_elf)) return nullptr;
  return f;
}

std::unique_ptr<ElfFile> ElfFile::from_memory(std::vector<uint8_t> image, std::string name,
                                              std::string* reason) {
  ensure_libelf();
  std::unique_ptr<ElfFile> f(new ElfFile);
  f->path_ = std::move(name);
  f->image_ = std::move(image);
  f->elf_ = elf_memory(reinterpret_cast<char*>(f->image_.data()), f->image_.size());
  if (!f->init(reason)) return nullptr;
  return f;
}

std::unique_ptr<ElfFile> ElfFile::over_image(std::span<uint8_t> image, std::string name, std::string* reason) {
  std::unique_ptr<ElfFile> f(new ElfFile);
  f->path_ = std::move(name);
  f->elf_ = libelf_over_image(image);
  if (!f->init(reason)) return nullptr;
  return f;
}

::Elf* libelf_over_image(std::span<uint8_t> image) {
  ensure_libelf();
  return elf_memory(reinterpret_cast<char*>(image.data()), image.size());
}

ElfFile::~ElfFile() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

bool ElfFile::init(std::string* reason, bool* not_elf) {
  auto fail = [&](std::string_view why) {
    if (reason) *reason = fmt::format("{}: {}", path_, why);
    return false;
  };
  if (not_elf) *not_elf = true;
  if (!elf_) return fail(elf_errmsg(-1));
  if (elf_kind(elf_) != ELF_K_ELF) return fail("not an ELF file");
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf_, &eh)) return fail(fmt::format("bad ELF header: {}", elf_errmsg(-1)));
  if (not_elf) *not_elf = false;
  type_ = eh.e_type;
  machine_ = eh.e_machine;
  elf64_ = eh.e_ident[EI_CLASS] == ELFCLASS64;
  big_endian_ = eh.e_ident[EI_DATA] == ELFDATA2MSB;

  size_t nph = 0;
  if (elf_getphdrnum(elf_, &nph) != 0) return fail(fmt::format("bad program headers: {}", elf_errmsg(-1)));
  std::optional<BuildId> bid;
  for (size_t i = 0; i < nph; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf_, static_cast<int>(i), &ph)) continue;
    if (ph.p_type == PT_LOAD) {
      loads_.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_align, (ph.p_flags & PF_X) != 0});
    } else if (ph.p_type == PT_NOTE && !bid) {
      // elf_getdata_rawchunk bounds-checks the range against the file size.
      if (Elf_Data* d = elf_getdata_rawchunk(elf_, static_cast<int64_t>(ph.p_offset), ph.p_filesz,
                                             ELF_T_NHDR))
        bid = build_id_from_note_data(d);
    }
  }
  if (!bid) {
    // Separate debug files and in-memory images may only have the note
    // section (their PT_NOTE points at NOBITS bytes).
    Elf_Scn* scn = nullptr;
    while (!bid && (scn = elf_nextscn(elf_, scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
      bid = build_id_from_note_data(elf_getdata(scn, nullptr));
    }
  }
  if (bid) build_id_ = *bid;
  return true;
}

std::optional<uint64_t> ElfFile::offset_to_vaddr(uint64_t off) const {
  for (const auto& l : loads_)
    if (off >= l.offset && off - l.offset < l.filesz) return l.vaddr + (off - l.offset);
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::vaddr_to_offset(uint64_t vaddr) const {
  for (const auto& l : loads_)
    if (vaddr >= l.vaddr && vaddr - l.vaddr < l.filesz) return l.offset + (vaddr - l.vaddr);
  return std::nullopt;
}

namespace {

Elf_Scn* find_section(Elf* elf, std::string_view name, GElf_Shdr* out) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
    if (n && name == n) {
      *out = sh;
      return scn;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<std::span<const uint8_t>> ElfFile::section_data(std::string_view name) const {
  GElf_Shdr sh;
  Elf_Scn* scn = find_section(elf_, name, &sh);
  if (!scn || sh.sh_type == SHT_NOBITS) return std::nullopt;
  Elf_Data* d = elf_rawdata(scn, nullptr);  // raw: libelf checks it lies inside the file
  if (!d || !d->d_buf) return std::nullopt;
  return std::span<const uint8_t>(static_cast<const uint8_t*>(d->d_buf), d->d_size);
}

std::optional<ElfFile::SectionInfo> ElfFile::section_info(std::string_view name) const {
  GElf_Shdr sh;
  if (!find_section(elf_, name, &sh)) return std::nullopt;
  return SectionInfo{sh.sh_addr, sh.sh_size, sh.sh_entsize, sh.sh_type};
}

std::vector<std::span<const uint8_t>> ElfFile::sections_data(std::string_view name, uint32_t type) const {
  std::vector<std::span<const uint8_t>> out;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf_, &shstrndx) != 0) return out;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != type) continue;
    const char* n = elf_strptr(elf_, shstrndx, sh.sh_name);
    if (!n || name != n) continue;
    Elf_Data* d = elf_rawdata(scn, nullptr);  // raw: libelf checks it lies inside the file
    if (d && d->d_buf) out.emplace_back(static_cast<const uint8_t*>(d->d_buf), d->d_size);
  }
  return out;
}

std::span<const uint8_t> ElfFile::bytes() const {
  size_t size = 0;
  const char* image = elf_rawfile(elf_, &size);
  return image ? std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(image), size) : std::span<const uint8_t>();
}

bool ElfFile::visit_symbols(uint32_t table_type, const std::function<void(const ElfSymbol&)>& fn) const {
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != table_type) continue;
    found = true;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf || sh.sh_entsize == 0) continue;
    const size_t n = std::min<size_t>(sh.sh_size / sh.sh_entsize, data->d_size / sh.sh_entsize);
    for (size_t i = 1; i < n; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(data, static_cast<int>(i), &s)) break;
      const char* name = elf_strptr(elf_, sh.sh_link, s.st_name);  // bounds-checked by libelf
      fn(ElfSymbol{name ? std::string_view(name) : std::string_view(), s.st_value, s.st_size,
                   static_cast<uint8_t>(GELF_ST_TYPE(s.st_info)), s.st_shndx});
    }
  }
  return found;
}

DynamicNames ElfFile::dynamic_names() const {
  DynamicNames out;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d || !sh.sh_entsize) continue;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(d, static_cast<int>(i), &dyn) || dyn.d_tag == DT_NULL) break;
      const bool path = dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH;
      if (dyn.d_tag != DT_NEEDED && !path) continue;
      if (const char* v = elf_strptr(elf_, sh.sh_link, dyn.d_un.d_val)) (path ? out.runpath : out.needed).emplace_back(v);
    }
  }
  return out;
}

namespace {
bool has_section_of_type(Elf* elf, uint32_t type) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size > 0 &&
        (sh.sh_entsize == 0 || sh.sh_size / sh.sh_entsize > 1))
      return true;
  }
  return false;
}
}  // namespace

bool ElfFile::has_symtab() const { return has_section_of_type(elf_, SHT_SYMTAB); }
bool ElfFile::has_dynsym() const { return has_section_of_type(elf_, SHT_DYNSYM); }

bool ElfFile::section_names_readable() const {
  size_t shstrndx = 0;
  return elf_getshdrstrndx(elf_, &shstrndx) == 0;
}

bool ElfFile::has_dwarf() const {
  GElf_Shdr sh;
  if (find_section(elf_, ".debug_info", &sh)) return sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
  return find_section(elf_, ".zdebug_info", &sh) != nullptr;
}

std::optional<DebugLink> ElfFile::debuglink() const {
  auto data = section_data(".gnu_debuglink");
  if (!data) return std::nullopt;
  const auto* p = reinterpret_cast<const char*>(data->data());
  size_t len = strnlen(p, data->size());
  if (len == 0 || len == data->size()) return std::nullopt;
  size_t crc_off = (len + 4) & ~size_t{3};  // name, NUL, padding to 4
  if (crc_off + 4 > data->size()) return std::nullopt;
  DebugLink dl;
  dl.name.assign(p, len);
  uint8_t b[4];
  std::memcpy(b, data->data() + crc_off, 4);
  const bool big = elf_getident(elf_, nullptr)[EI_DATA] == ELFDATA2MSB;
  dl.crc = big ? (uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3])
               : (uint32_t{b[3]} << 24 | uint32_t{b[2]} << 16 | uint32_t{b[1]} << 8 | b[0]);
  // A name with a directory part could point anywhere; the format has none.
  if (dl.name.find('/') != std::string::npos) return std::nullopt;
  return dl;
}

std::unique_ptr<ElfFile> ElfFile::open_minidebuginfo(std::string* reason) const {
  auto data = section_data(".gnu_debugdata");
  if (!data) {
    if (reason) *reason = fmt::format("{}: no .gnu_debugdata", path_);
    return nullptr;
  }
  // The payload is an xz stream holding a small ELF with .symtab. Cap the
  // output so a hostile section cannot make us allocate without bound.
  constexpr uint64_t kMaxOut = uint64_t{512} << 20;
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&strm, kMaxOut, 0) != LZMA_OK) {
    if (reason) *reason = fmt::format("{}: cannot start the xz decoder", path_);
    return nullptr;
  }
  std::vector<uint8_t> out(std::max<size_t>(data->size() * 4, 4096));
  strm.next_in = data->data();
  strm.avail_in = data->size();
  lzma_ret ret = LZMA_OK;
  size_t total = 0;
  while (true) {
    strm.next_out = out.data() + total;
    strm.avail_out = out.size() - total;
    ret = lzma_code(&strm, LZMA_FINISH);
    total = out.size() - strm.avail_out;
    if (ret != LZMA_OK) break;  // LZMA_STREAM_END on success, an error otherwise
    if (strm.avail_out == 0) {
      if (out.size() >= kMaxOut) break;
      out.resize(std::min<size_t>(out.size() * 2, kMaxOut));
    }
  }
  lzma_end(&strm);
  if (ret != LZMA_STREAM_END) {
    if (reason) *reason = fmt::format("{}: corrupt .gnu_debugdata (xz error {})", path_, static_cast<int>(ret));
    return nullptr;
  }
  out.resize(total);
  return from_memory(std::move(out), path_ + " [.gnu_debugdata]", reason);
}

std::optional<uint32_t> debuglink_crc32(const std::string& path) {
  UniqueFd fd = open_regular_file(path.c_str());
  if (!fd) return std::nullopt;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<uint8_t> buf(1 << 16);
  while (true) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    crc = crc32(crc, buf.data(), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace sonde
