// The rows of `sonde report` as perf report builds its hist entries
// (util/hist.c, hist_entry_iter): one row per distinct value of the sort
// keys. A sample adds its period to the row of its own frame ("Self"), and
// with Children to the row of every caller in its chain too (once per row,
// however often recursion repeats it). Each row keeps the call chains that
// reached it for -g, as perf appends them: the whole chain for the sample's
// own row, the chain from the caller on for a caller's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "analysis/profile.h"
#include "report/call_graph_options.h"
#include "report/call_tree.h"
#include "report/report_fields.h"

namespace sonde::report {

// What tells rows apart: only the fields of sort keys are set.
struct HistKey {
  uint32_t comm = 0, thread = 0, dso = 0, sym = 0, srcline = 0, parent = 0;
  int32_t cpu = 0, socket = 0, core = 0;
  bool operator==(const HistKey&) const = default;
};

struct HistEntry {
  HistKey key;
  uint32_t function = UINT32_MAX;  // the row's symbol (Profile function)
  uint32_t location = UINT32_MAX;  // a location of it (object, level, address)
  analysis::StringId comm = 0;
  uint32_t pid = 0, tid = 0;  // the first sample's thread
  int32_t cpu = -1, socket = -1, core = -1;
  bool kernel = false;           // perf's level: [k] or [.]
  uint32_t parent = UINT32_MAX;  // the --parent match (Profile function), or none
  std::string srcline;
  uint64_t self_period = 0, self_samples = 0;
  uint64_t acc_period = 0, acc_samples = 0;  // with its callees
  uint64_t sys_period = 0, us_period = 0;    // of self_period
  bool filtered = false;  // hidden by --comm/--pid/--tid/--dsos/--symbols (still counted in the totals)
  std::unique_ptr<CallTree> chains;  // with -g
};

struct EventHists {
  uint32_t event = 0;
  uint64_t samples = 0, period = 0;  // every sample of the event, hidden ones included
  std::vector<HistEntry> entries;
};

struct HistOptions {
  FieldLayout layout;
  bool children = true;
  bool call_graph = false;                   // keep each row's chains
  GraphOrder order = GraphOrder::kCallee;    // the chains' order (resolved: callee or caller)
  GraphKey key = GraphKey::kFunction;
  std::shared_ptr<const std::regex> parent;          // --parent (perf's default when unset)
  std::shared_ptr<const std::regex> ignore_callees;  // --ignore-callees
  // Rows of samples outside these are hidden (perf's thread and dso filters).
  std::vector<std::string> comms, dsos;
  std::vector<uint32_t> pids, tids;
  // perf's --symbols, as perf_symbol_names made it: the sample's own symbol
  // is one of these (empty: none is).
  std::optional<std::vector<std::string>> symbols;
};

// perf 6.1's list for --symbols (symbol__init): sorted, without the entries
// that read whole as hexadecimal numbers (perf moves them to a list of
// addresses that report never consults: they match nothing). A name given
// twice is a usage error (perf: "problems parsing symbol list").
std::vector<std::string> perf_symbol_names(const std::vector<std::string>& given);

std::vector<EventHists> build_hists(const analysis::Profile& p, const HistOptions& options);

// What perf adds to a call-graph frame's name for the address and srcline
// keys: "file.c:12"; "??:0" for user code without lines; in the kernel
// (no lines without a vmlinux) "+OFFSET" for the address key, nothing for
// srcline.
std::string frame_srcline(const analysis::Profile& p, uint32_t location, GraphKey key);

// A row's object as perf names it: "[kernel.kallsyms]", "[vdso]", the file
// name, or with `long_name` its path; "[unknown]" without one.
std::string object_name(const analysis::Profile& p, uint32_t location, bool long_name);
// The same for every location of a Profile without a string per call: each
// mapping's name made once (rows compare and print them many times).
class ObjectNames {
 public:
  ObjectNames(const analysis::Profile& p, bool long_name);
  std::string_view operator()(uint32_t location) const;

 private:
  const analysis::Profile& p_;
  std::vector<std::string> by_mapping_;
};

}  // namespace sonde::report
