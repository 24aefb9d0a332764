// The samples of a recording per (event, symbol), by offset into the
// symbol: what perf annotate keeps in its sym_hist. Self cost is the
// sampled address; with call chains, each caller frame's return address
// puts the sample on the call instruction before it (inclusive cost),
// once per sample however often the symbol recurses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/frames.h"
#include "analysis/symbol_resolver.h"
#include "elf/build_id.h"
#include "elf/symbol_table.h"
#include "format/sample.h"

namespace sonde::annotate {

struct Hits {
  uint64_t samples = 0;
  uint64_t period = 0;
  void add(uint64_t p) { ++samples, period += p; }
  Hits& operator+=(const Hits& o) { return samples += o.samples, period += o.period, *this; }
};

struct SymbolHist {
  std::string name;        // as report prints it (demangled)
  std::string dso;         // the mapping's path
  BuildId build_id;
  uint32_t pid = 0;        // a process that mapped it (for /proc/PID/root)
  bool kernel = false;
  ObjectHandle object;
  uint64_t symbol_addr = 0;  // link-time (runtime for kernel and JIT code)
  uint64_t symbol_size = 0;
  uint64_t file_offset = 0;  // of symbol_addr, in the mapped file (ELF objects)
  std::map<uint64_t, Hits> self;      // by offset into the symbol
  std::map<uint64_t, Hits> children;  // by offset of (return address - 1)
  Hits self_total;
  Hits children_total;  // samples with this symbol on a caller frame
};

// Objects whose samples could not be given a symbol, and why (for the
// error when a named symbol is not found).
struct UnresolvedObject {
  std::string dso;
  std::string why;
  bool not_found = false;  // the object itself was not found
  BuildId build_id;
  uint32_t pid = 0;
  uint64_t samples = 0;
};

struct EventHists {
  std::string event;
  uint64_t nr_samples = 0;    // samples of the event that passed the filters
  uint64_t total_period = 0;  // their period: the global percentages' 100%
  std::vector<SymbolHist> symbols;
  std::vector<UnresolvedObject> unresolved;
};

struct CollectOptions {
  std::vector<std::string> symbols;  // only these names (empty: all)
  std::vector<std::string> dsos;     // only samples in these objects (path or file name)
  bool inclusive = true;             // walk call chains for the call instructions' cost
  // A -k vmlinux's symbols: a kernel symbol ends where its ELF size says
  // (samples past it, in padding, are in no symbol, as perf counts them).
  const SymbolTable* kernel_sizes = nullptr;
};

class HistCollector {
 public:
  HistCollector(analysis::SymbolResolver& resolver, const analysis::AddressSpace& space, CollectOptions opts);
  void add(const format::Sample& s);
  // Events in the order their first sample came.
  std::vector<EventHists> take();

 private:
  struct Event {
    EventHists hists;
    std::unordered_map<uint64_t, size_t> by_symbol;  // (object, symbol) key -> index
    std::unordered_map<uint32_t, size_t> unresolved;  // object handle -> index
  };
  bool dso_wanted(const analysis::Frame& f) const;
  bool name_wanted(std::string_view name) const;
  bool past_vmlinux_size(const analysis::Frame& f, const ResolvedSymbol& r) const;
  SymbolHist* symbol_for(Event& ev, const analysis::Frame& f, uint32_t pid, uint64_t* offset);
  void note_unresolved(Event& ev, const analysis::Frame& f, uint32_t pid);
  void add_callers(Event& ev, uint32_t pid, uint64_t period);

  analysis::SymbolResolver& resolver_;
  const analysis::AddressSpace& space_;
  CollectOptions opts_;
  std::vector<Event> events_;
  std::unordered_map<const void*, size_t> event_index_;
  std::vector<analysis::Frame> frames_;
  std::vector<std::pair<size_t, uint64_t>> seen_;  // this sample's (symbol, offset) pairs
};

}  // namespace sonde::annotate
