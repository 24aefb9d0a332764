// sonde's one model of a profile, shared by `report` and every exporter
// (pprof, folded, speedscope, HTML): interned strings, mappings, functions,
// locations, call stacks as a prefix tree, and samples aggregated by
// (event, thread, stack). Exporters are "tables plus indices" over it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/reading_outcome.h"
#include "format/event_kind.h"

namespace sonde::analysis {

using StringId = uint32_t;  // 0 is ""

struct ProfileMapping {
  uint64_t start = 0, end = 0, pgoff = 0;
  StringId path = 0;      // perf's long name (util/mapped_path.h): /tmp/perf-PID.map for JIT code
  StringId build_id = 0;  // hex, 0 if unknown
  bool kernel = false;
  uint32_t seen = 0;  // the order the recording mapped it in (AddressSpace's Mapping::index)
  StringId object = 0;  // the exports' name: the path, [JIT] tid PID for JIT code (0: the path)
};

struct ProfileFunction {
  StringId name = 0;      // demangled (or raw when demangling is off)
  StringId raw_name = 0;  // as in the symbol table
  StringId file = 0;      // source file when known
  uint32_t mapping = UINT32_MAX;
  bool resolved = false;  // false: a placeholder like "[unknown]" or "0x1234"
};

struct ProfileLine {
  uint32_t function = 0;
  uint32_t line = 0;
};

struct ProfileLocation {
  uint32_t mapping = UINT32_MAX;  // UINT32_MAX: no mapping
  uint64_t address = 0;           // runtime address
  uint64_t file_offset = 0;
  uint32_t function = 0;          // the outermost function at this address
  uint64_t symbol_offset = 0;
  bool kernel = false;
  std::vector<ProfileLine> lines;  // innermost first when inline frames are known
};

// One node of the call-stack prefix tree: a location and its caller's node.
struct StackNode {
  uint32_t parent = UINT32_MAX;  // UINT32_MAX: the root (outermost frame)
  uint32_t location = 0;
  uint32_t depth = 0;
};

struct ProfileEvent {
  std::string name;
  format::EventKind kind = format::EventKind::kCount;  // decided when the attrs were read
  uint64_t samples = 0;
  uint64_t period = 0;
  uint64_t sample_type = 0;  // the attr's: whether samples carry a cpu, ...
  uint32_t attr_index = 0;   // its place among the recording's events (perf lists them so)

  // "nanoseconds" for clocks and off-CPU time, else "events".
  std::string_view unit() const { return format::period_unit(kind); }
};

struct ProfileSample {
  uint32_t event = 0;
  uint32_t pid = 0, tid = 0;
  uint32_t cpu = 0;  // the first sample's when the profile was not split by cpu
  StringId comm = 0;
  uint32_t stack = UINT32_MAX;  // leaf node; UINT32_MAX: empty stack
  uint64_t count = 0;           // samples aggregated here
  uint64_t period = 0;          // their summed period
  uint64_t first_time = 0;      // earliest timestamp aggregated
};

// Where a CPU is, from HEADER_CPU_TOPOLOGY.
struct CpuPlace {
  int32_t core = -1, socket = -1;
};

class Profile {
 public:
  Profile() { strings_.emplace_back(); index_.emplace(std::string(), 0); }

  StringId intern(std::string_view s);
  std::string_view str(StringId id) const { return strings_[id]; }

  std::vector<ProfileMapping> mappings;
  std::vector<ProfileFunction> functions;
  std::vector<ProfileLocation> locations;
  std::vector<StackNode> nodes;
  std::vector<ProfileEvent> events;
  std::vector<ProfileSample> samples;

// Header facts from the recording.
  std::string hostname, os_release, arch, cpu_desc, cmdline;
  uint64_t lost_samples = 0;
  // How the reading ended: the incomplete tail and a malformed record that
  // stopped it (analysis/reading_outcome.h; lost and malformed samples are
  // lost_samples and notes, which the outputs show themselves).
  ReadingOutcome outcome;
  std::vector<CpuPlace> cpus;  // by cpu number; empty when the recording has no topology
  // Each sampled thread's name at the end of the recording (perf names a
  // thread so in `--sort pid`), by tid.
  std::unordered_map<uint32_t, StringId> thread_comms;
  std::vector<std::string> notes;  // symbolization notes to show once
  std::string header_facts;        // perf's --header text, when asked (header_facts.h)

  // Frames of a stack, leaf first (appends to out after clearing it).
  void stack_locations(uint32_t leaf, std::vector<uint32_t>& out) const;
  const std::vector<std::string>& all_strings() const { return strings_; }

 private:
  std::vector<std::string> strings_;
  // Looked up by string_view (no std::string built per lookup).
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, StringId, TextHash, std::equal_to<>> index_;
};

}  // namespace sonde::analysis
