// Frames → symbols through the Symbolizer, with the two caches that make a
// report fast: one object handle per mapping, and one resolved symbol per
// (mapping, file offset) — profiles hit the same few thousand addresses
// millions of times.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/frame_symbols.h"
#include "analysis/frames.h"
#include "symbol/symbolizer.h"

namespace sonde::analysis {

class SymbolResolver : public FrameSymbols {
 public:
  explicit SymbolResolver(Symbolizer& symbolizer) : sym_(symbolizer) {}

  // The symbol for a frame; the reference stays valid until the next call.
  const ResolvedSymbol& resolve(const Frame& f, uint32_t pid);
  // The same without remembering it, for callers that ask once per
  // (mapping, offset) anyway (build_profile's locations are unique).
  ResolvedSymbol resolve_once(const Frame& f, uint32_t pid);
  // The object handle behind a frame (invalid for frames without one).
  ObjectHandle handle(const Frame& f, uint32_t pid);
  // The value Symbolizer::lookup expects for this frame's object.
  uint64_t lookup_key(const Frame& f, ObjectHandle h) const;

  // Starts loading the symbols a kernel mapping will need on another thread
  // (for callers that symbolize as they walk, like script); other mappings
  // load on first use.
  void prefetch(const Mapping& m);

  SymbolName symbolize(const Frame& f, uint32_t pid) override;
  void inline_names(const Frame& f, uint32_t pid, std::vector<std::string_view>& out) override;
  void function_chain(const Frame& f, uint32_t pid, std::vector<InlineFrame>& out) override;
  bool source_line(const Frame& f, uint32_t pid, SourceLine& out) override;
  Symbolizer& symbolizer() { return sym_; }

 private:
  Symbolizer& sym_;
  std::vector<ObjectHandle> by_mapping_;  // index: Mapping::index
  ObjectHandle kernel_{};
  bool kernel_known_ = false;
  struct Key {
    uint32_t map;
    uint64_t offset;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.offset * 0x9e3779b97f4a7c15ULL ^ k.map); }
  };
  std::unordered_map<Key, ResolvedSymbol, KeyHash> cache_;
  ResolvedSymbol unresolved_;
  std::vector<InlineFrame> inlines_;
};

}  // namespace sonde::analysis
