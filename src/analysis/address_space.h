// The processes, threads and memory mappings a recording describes, rebuilt
// from its COMM/FORK/EXIT/MMAP/MMAP2 records. This is step one of
// symbolization: an address becomes (mapping, file offset, build-id).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "elf/build_id.h"
#include "format/stream_reader.h"

namespace sonde::analysis {

struct Mapping {
  uint64_t start = 0, end = 0, pgoff = 0;
  std::string_view path;  // interned, stable for the AddressSpace's life
  std::string_view name;  // long_name(), interned when added
  BuildId build_id;       // empty when the recording gave none
  uint32_t prot = 0;
  bool kernel = false;
  uint32_t pid = 0;
  uint32_t index = 0;  // dense id, stable: usable as a key by callers

  uint64_t file_offset(uint64_t addr) const { return addr - start + pgoff; }
  bool executable() const { return prot == 0 || (prot & 4) != 0; }
  // The name every output prints (perf's long name, util/mapped_path.h):
  // anonymous code reads /tmp/perf-PID.map.
  std::string long_name() const;
};

class AddressSpace {
 public:
  // Updates the model from a kernel or synthesized record (others ignored).
  void on_record(const format::RecordView& rec);

  // Code that no MMAP describes (JIT code, analysis/jit_timeline.h): a
  // mapping of `path` at [start, end) from file offset `pgoff`, replacing
  // what it overlaps, as an mmap would.
  void add_code(uint32_t pid, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t prot, std::string_view path);
  // A path kept for the address space's life.
  std::string_view intern_path(std::string_view s) { return intern(s); }

  // The mapping holding addr for pid; kernel addresses look in the kernel's
  // maps. nullptr if none.
  const Mapping* find(uint32_t pid, uint64_t addr, bool kernel) const;
  // The last name set for a thread (or its process), "" if unknown.
  std::string_view comm(uint32_t pid, uint32_t tid) const;

  // Changes whenever a mapping or process changes: results computed from
  // lookups stay valid while it does not.
  uint64_t generation() const { return generation_; }

  // The mapping the last record added (an MMAP/MMAP2 of code), else nullptr.
  const Mapping* last_added() const { return last_added_; }

  // Every mapping ever seen, in the order seen (for buildid-list).
  const std::deque<Mapping>& all_mappings() const { return mappings_; }
  // Build-ids learned from HEADER_BUILD_ID records (file-mode build-id
  // table, perf inject -b), keyed by path.
  const std::unordered_map<std::string_view, BuildId>& header_build_ids() const { return header_build_ids_; }

 private:
  struct Process {
    std::vector<const Mapping*> maps;  // sorted by start, non-overlapping
  };
  std::string_view intern(std::string_view s);
  void add_mapping(Mapping m);
  void insert_sorted(std::vector<const Mapping*>& maps, const Mapping* m);

  uint64_t generation_ = 1;
  const Mapping* last_added_ = nullptr;
  std::unordered_set<std::string> strings_;
  std::deque<Mapping> mappings_;
  std::unordered_map<uint32_t, Process> processes_;
  Process kernel_;
  std::unordered_map<uint32_t, std::string_view> comms_;  // by tid
  // comm() is asked once per sample: a small direct-mapped cache of recent
  // answers, emptied by every COMM and FORK record.
  struct CommHit {
    uint32_t pid = UINT32_MAX, tid = UINT32_MAX;
    std::string_view comm;
  };
  mutable CommHit comm_cache_[16];
  // find() is asked once per frame, mostly for a few processes whose
  // samples interleave: the processes found last, direct-mapped by pid
  // (entries of processes_ are never erased, and unordered_map nodes do not
  // move, so the pointers stay valid).
  struct ProcessHit {
    uint32_t pid = 0;
    const Process* process = nullptr;
  };
  mutable ProcessHit process_cache_[8];
  std::unordered_map<std::string_view, BuildId> header_build_ids_;
};

}  // namespace sonde::analysis
