// Reading SDT probe sites from the `.note.stapsdt` notes of an ELF file
// (32/64-bit, either byte order), with the `.stapsdt.base` prelink
// adjustment and the address → file-offset conversion uprobes need (through
// the PT_LOAD that holds each address: correct for bfd and lld output alike).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elf/build_id.h"
#include "probe/sdt_args.h"

namespace sonde::probe {

struct SdtSite {
  std::string provider;
  std::string name;
  std::string args;            // the argument string as in the note
  uint64_t pc = 0;             // link-time address, after the .stapsdt.base adjustment
  uint64_t base = 0;           // the note's .stapsdt.base address
  uint64_t semaphore = 0;      // link-time address, 0 if none
  uint64_t pc_offset = 0;      // file offset of the probe instruction (uprobe offset)
  uint64_t sem_offset = 0;     // file offset of the semaphore (ref_ctr_offset), 0 if none
  ParsedArgs parsed;           // with rip-relative symbols resolved to link-time addresses
  bool retprobe = false;       // a return probe (record -e 'probe:BIN:F%return'); never for notes

  bool has_semaphore() const { return semaphore != 0; }
  std::string full_name() const { return "%" + provider + ":" + name; }
};

struct SdtFile {
  std::string path;            // as given (absolute when scanned through the cache)
  BuildId build_id;
  uint16_t machine = 0;
  bool elf64 = true;
  std::vector<SdtSite> sites;
  std::vector<std::string> needed;  // DT_NEEDED sonames
  std::vector<std::string> runpath; // DT_RUNPATH / DT_RPATH entries, $ORIGIN unexpanded
};

// Scans `path`. Throws sonde::Error: usage for a non-ELF or unreadable file
// (the user named it), runtime for a corrupt note or address that maps to no
// segment. A file without notes gives an empty `sites`.
// `args`: Skip leaves every site's `parsed` empty (for listing, which prints
// the argument strings as they are); sites scanned that way must not be
// attached.
enum class SdtArgs { Parse, Skip };
SdtFile scan_sdt_file(const std::string& path, SdtArgs args = SdtArgs::Parse);

// Where the dynamic loader would find DT_NEEDED `soname` of `from` (enough
// for probing: RUNPATH/RPATH with $ORIGIN, LD_LIBRARY_PATH, the usual
// folders; not ld.so.cache).
std::optional<std::string> find_needed_library(const std::string& soname, const SdtFile& from);

}  // namespace sonde::probe
