// The columns of `sonde report` and the order its rows are sorted in, as
// perf report sets them up from -F/--fields and -s/--sort (util/sort.c:
// __setup_sorting, setup_overhead, perf_hpp__setup_output_field and
// perf_hpp__append_sort_keys).
//
// A field is either a value (overhead, sample, period, ...) or a key that
// tells rows apart (comm, dso, sym, ...). Rows are the distinct values of
// the keys in the sort list; they are ordered by the sort list's fields in
// turn.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::report {

enum class Field {
  kChildren,     // overhead_children: the entry and its callees
  kOverhead,     // the entry itself ("Self" beside Children)
  kOverheadSys,  // its samples in the kernel
  kOverheadUs,   // its samples in user space
  kSample,       // its sample count
  kPeriod,       // its period
  kComm,
  kPid,  // perf's: the thread (tid) and its name
  kTid,  // sonde's: the same, named Tid
  kDso,
  kSym,
  kSrcline,
  kParent,  // the first caller matching --parent
  kCpu,
  kSocket,  // from the recording's CPU topology
  kCore,    // sonde's: likewise
};

bool is_key(Field f);
std::string_view field_name(Field f);

struct FieldLayout {
  std::vector<Field> columns;  // printed, left to right
  std::vector<Field> sort;     // rows ordered by these in turn; its keys tell rows apart
  bool named = false;          // -F named every column (perf then calls the overhead "Overhead", never "Self")
  bool has(Field f) const;     // in the sort list (a key that tells rows apart) or a column
};

struct FieldRequest {
  std::optional<std::string> fields;  // -F: exactly these columns, or "+a,b" added to the default ones
  std::optional<std::string> sort;    // -s (default comm,dso,sym)
  bool children = true;
  bool show_samples = false;  // -n
  bool cpu_utilization = false;  // --showcpuutilization: sys and usr after the overhead
  bool total_period = false;     // --show-total-period: Period after Samples
};

// Throws a usage error naming an unknown field.
FieldLayout layout_fields(const FieldRequest& request);

}  // namespace sonde::report
