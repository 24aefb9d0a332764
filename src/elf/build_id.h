// GNU build-ids: the identity of an ELF object. Read straight from the
// program headers' PT_NOTE segments with bounded pread()s (no libelf), so the
// recorder can afford it for every new mapping it sees.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sonde {

struct BuildId {
  uint8_t size = 0;
  std::array<uint8_t, 20> bytes{};

  bool empty() const { return size == 0; }
  std::span<const uint8_t> view() const { return {bytes.data(), size}; }
  std::string hex() const;
  // Parses 2..40 hex digits; nullopt for anything else.
  static std::optional<BuildId> from_hex(std::string_view hex);
  static BuildId from_bytes(std::span<const uint8_t> b);
  bool operator==(const BuildId& o) const { return size == o.size && bytes == o.bytes; }
};

struct BuildIdHash {
  size_t operator()(const BuildId& b) const;
};

// Build-id of the ELF file open at fd (32/64-bit, either byte order).
std::optional<BuildId> read_build_id(int fd);
std::optional<BuildId> read_build_id(const std::string& path);
// Build-id of an ELF image held in memory, laid out as its file (the vdso).
std::optional<BuildId> read_build_id(std::span<const uint8_t> image);

// Build-id from a raw sequence of ELF notes, as in /sys/kernel/notes and
// /sys/module/NAME/notes/.note.gnu.build-id.
std::optional<BuildId> find_build_id_in_notes(std::span<const uint8_t> notes);
std::optional<BuildId> read_build_id_from_notes_file(const std::string& path);

}  // namespace sonde
