// Read-only access to one ELF object through libelf: the header (type,
// machine, class, byte order), program headers (file offset <-> virtual
// address), named sections, symbols, the dynamic section's DT_NEEDED and
// search path, .gnu_debuglink and the MiniDebugInfo (.gnu_debugdata)
// payload. The one reader of ELF facts (docs/architecture.md; ctest
// SourceRules.elf: libelf is called only in src/elf/). Failures return
// nullptr/nullopt plus a one-line reason: symbolization degrades per object,
// it never throws.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/build_id.h"
#include "util/fd.h"

struct Elf;  // libelf's handle; kept out of this header on purpose

namespace sonde {

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t offset = 0;
  uint64_t filesz = 0;
  uint64_t align = 0;
  bool executable = false;
};

// One entry of .symtab or .dynsym. `name` points into the ElfFile's bytes.
struct ElfSymbol {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t type = 0;      // STT_*
  uint16_t section = 0;  // st_shndx (SHN_UNDEF: not defined here)
};

// The dynamic section's names, in the order of its entries.
struct DynamicNames {
  std::vector<std::string> needed;   // DT_NEEDED
  std::vector<std::string> runpath;  // DT_RUNPATH / DT_RPATH values, unsplit
};

struct DebugLink {
  std::string name;  // file name only (no directory), as stored in the section
  uint32_t crc = 0;  // CRC-32 of the whole debug file
};

class ElfFile {
 public:
  // Opens `path` (read-only, mmap'ed by libelf). nullptr and *reason set when
  // the file cannot be opened or is not an ELF object.
  static std::unique_ptr<ElfFile> open(const std::string& path, std::string* reason);
  // Opens an in-memory image; the ElfFile keeps the bytes alive. `name` is only
  // used in messages.
  static std::unique_ptr<ElfFile> from_memory(std::vector<uint8_t> image, std::string name,
                                              std::string* reason);
  // Opens an image the caller keeps alive (and writable: libelf's API takes
  // it so) for as long as the ElfFile lives: a file mapped once and shared.
  static std::unique_ptr<ElfFile> over_image(std::span<uint8_t> image, std::string name, std::string* reason);
  // Opens an already opened file. On failure, *not_elf says whether the
  // file is no ELF object at all (no ELF header) or a corrupt one.
  static std::unique_ptr<ElfFile> from_fd(UniqueFd fd, std::string path, std::string* reason,
                                          bool* not_elf = nullptr);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  ::Elf* elf() const { return elf_; }
  const std::string& path() const { return path_; }
  const BuildId& build_id() const { return build_id_; }  // empty when the object has none
  uint16_t type() const { return type_; }                // ET_EXEC, ET_DYN, ...
  int fd() const { return fd_; }                         // -1 for in-memory images
  uint16_t machine() const { return machine_; }          // EM_X86_64, EM_AARCH64, ...
  bool elf64() const { return elf64_; }                  // ELFCLASS64
  bool big_endian() const { return big_endian_; }        // ELFDATA2MSB
  // The object's bytes (the file as libelf mapped it, or the image).
  std::span<const uint8_t> bytes() const;

  // PT_LOAD segments in file order.
  const std::vector<LoadSegment>& load_segments() const { return loads_; }
  // A file offset inside a PT_LOAD's file bytes to the link-time address.
  std::optional<uint64_t> offset_to_vaddr(uint64_t file_offset) const;
  std::optional<uint64_t> vaddr_to_offset(uint64_t vaddr) const;

  // Bytes of a section with file contents (not SHT_NOBITS); nullopt if absent
  // or out of bounds. The span stays valid while this ElfFile lives.
  std::optional<std::span<const uint8_t>> section_data(std::string_view name) const;
  // Section header (address, size) of a named section, even SHT_NOBITS.
  struct SectionInfo {
    uint64_t addr = 0;
    uint64_t size = 0;
    uint64_t entsize = 0;
    uint32_t type = 0;
  };
  std::optional<SectionInfo> section_info(std::string_view name) const;
  // The contents of every section of that name and type (SHT_NOTE...), in
  // section order: a linked object may carry several.
  std::vector<std::span<const uint8_t>> sections_data(std::string_view name, uint32_t type) const;

  // Each symbol (index 1 on) of every section of `table_type` (SHT_SYMTAB or
  // SHT_DYNSYM); false when the object has no such section.
  template <typename Fn>
  bool for_each_symbol(uint32_t table_type, Fn&& fn) const {
    return visit_symbols(table_type, [&](const ElfSymbol& s) { fn(s); });
  }
  // DT_NEEDED and the library search path; empty without a dynamic section.
  DynamicNames dynamic_names() const;

  bool has_symtab() const;  // a .symtab with at least one symbol
  bool has_dynsym() const;
  bool has_dwarf() const;   // .debug_info with contents (plain or compressed)
  bool section_names_readable() const;  // a valid section name table index

  std::optional<DebugLink> debuglink() const;
  // Decompresses .gnu_debugdata (xz) and opens the embedded ELF. nullptr and
  // *reason when absent or corrupt.
  std::unique_ptr<ElfFile> open_minidebuginfo(std::string* reason) const;

 private:
  ElfFile() = default;
  bool init(std::string* reason, bool* not_elf = nullptr);
  bool visit_symbols(uint32_t table_type, const std::function<void(const ElfSymbol&)>& fn) const;

  std::string path_;
  int fd_ = -1;
  ::Elf* elf_ = nullptr;
  std::vector<uint8_t> image_;  // owned bytes for in-memory objects
  BuildId build_id_;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  bool elf64_ = false;
  bool big_endian_ = false;
  std::vector<LoadSegment> loads_;
};

// A libelf handle over an image, for a library that takes one and ends it
// itself (libdwfl's find_elf callback); the caller keeps the bytes.
::Elf* libelf_over_image(std::span<uint8_t> image);

// CRC-32 as used by .gnu_debuglink (the zlib polynomial) of a whole file.
std::optional<uint32_t> debuglink_crc32(const std::string& path);

}  // namespace sonde
