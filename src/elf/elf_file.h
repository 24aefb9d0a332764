// Read-only access to one ELF object through libelf: program headers
// (file offset <-> virtual address), named sections, .gnu_debuglink and the
// MiniDebugInfo (.gnu_debugdata) payload. Failures return nullptr/nullopt plus
// a one-line reason: symbolization degrades per object, it never throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/build_id.h"

struct Elf;  // libelf's handle; kept out of this header on purpose

namespace sonde {

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t offset = 0;
  uint64_t filesz = 0;
  bool executable = false;
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
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  ::Elf* elf() const { return elf_; }
  const std::string& path() const { return path_; }
  const BuildId& build_id() const { return build_id_; }  // empty when the object has none
  uint16_t type() const { return type_; }                // ET_EXEC, ET_DYN, ...
  int fd() const { return fd_; }                         // -1 for in-memory images

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

  bool has_symtab() const;  // a .symtab with at least one symbol
  bool has_dynsym() const;
  bool has_dwarf() const;   // .debug_info with contents (plain or compressed)

  std::optional<DebugLink> debuglink() const;
  // Decompresses .gnu_debugdata (xz) and opens the embedded ELF. nullptr and
  // *reason when absent or corrupt.
  std::unique_ptr<ElfFile> open_minidebuginfo(std::string* reason) const;

 private:
  ElfFile() = default;
  bool init(std::string* reason);

  std::string path_;
  int fd_ = -1;
  ::Elf* elf_ = nullptr;
  std::vector<uint8_t> image_;  // owned bytes for in-memory objects
  BuildId build_id_;
  uint16_t type_ = 0;
  std::vector<LoadSegment> loads_;
};

// CRC-32 as used by .gnu_debuglink (the zlib polynomial) of a whole file.
std::optional<uint32_t> debuglink_crc32(const std::string& path);

}  // namespace sonde
