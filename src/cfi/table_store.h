// The recorder's unwind tables: each object compiled once (table_compiler.h)
// and loaded once into the BPF rows map, shared by every process that maps
// it (by build-id, else by file), within a bound on rows. What was loaded,
// what had no CFI and what did not fit are counted for the end-of-recording
// summary.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cfi/cfi_abi.h"
#include "elf/elf_file.h"

namespace sonde::cfi {

// An object as the processes map it: its table (or SONDE_CFI_NO_TABLE) and
// its segments, to place mappings.
struct ObjectTable {
  uint32_t table = SONDE_CFI_NO_TABLE;
  std::vector<LoadSegment> loads;
  bool opened = false;  // an ELF object was read
};

struct TableTotals {
  uint64_t objects = 0;      // objects seen (one per file)
  uint64_t tables = 0;       // tables loaded (one per build-id)
  uint64_t rows = 0;         // their rows (8 bytes each)
  uint64_t without_cfi = 0;  // objects with no usable .eh_frame: walked by frame pointers
  uint64_t over_bound = 0;   // objects whose table did not fit in the rows map
  uint64_t ranges = 0;       // address ranges evaluated
  uint64_t unsupported = 0;  // ... with a rule the unwinder cannot follow
  double compile_seconds = 0;
};

class TableStore {
 public:
  // Puts a table's rows at [table.first, +rows.size()) and its descriptor
  // at `index` (CfiBpf::set_table); false when refused.
  using Loader = std::function<bool(uint32_t index, const sonde_cfi_table& table, std::span<const uint64_t> rows)>;
  TableStore(Loader loader, uint32_t max_tables, uint32_t max_rows);

  // The object at `path` (a path this process can open), known by its file
  // (dev, ino): compiled and loaded the first time it is seen.
  const ObjectTable& object(const std::string& path, uint64_t dev, uint64_t ino);
  // The vdso of a process that maps `len` bytes of it: this process's own
  // image (every 64-bit process on this kernel maps the same one), compiled
  // once; no table when the length differs (another ABI's image).
  const ObjectTable& vdso(uint64_t len);
  const TableTotals& totals() const { return totals_; }

 private:
  uint32_t load(const ElfFile& elf);

  Loader loader_;
  uint32_t max_tables_, max_rows_;
  std::map<std::pair<uint64_t, uint64_t>, ObjectTable> by_file_;
  std::map<std::string, uint32_t> by_build_id_;  // hex build-id -> table index
  std::optional<ObjectTable> vdso_;                  // compiled on first use
  ObjectTable no_table_;
  uint32_t next_row_ = 0;
  TableTotals totals_;
};

// The executable file mappings of process `pid` (its /proc/PID/maps) and
// its [vdso] with their tables, sorted; nullopt when the process is gone.
// Anonymous and deleted mappings are left out: the program walks them by
// frame pointer.
std::optional<sonde_cfi_process> process_mappings(pid_t pid, TableStore& store);

}  // namespace sonde::cfi
