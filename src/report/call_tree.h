// The call chains of one report row as perf keeps them (util/callchain.c):
// a prefix tree whose nodes hold runs of frames, split where chains part,
// each node counting the period of the chains that end in it (hit) and of
// those that go on (children_hit). Children are kept ordered by their first
// frame, the greater first: perf's tree puts a new child left of a smaller
// one, and visits them in that order when it sorts them for printing
// (equal values keep it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sonde::report {

// One frame of a chain, compared the way perf compares callchain entries:
// by object (perf compares its objects' addresses: sonde ranks them in the
// order perf creates them), then by position in it (the symbol's start,
// or the address when the frame has no symbol or the key is the address).
struct ChainElem {
  uint32_t function = 0;  // the Profile function printed for it
  uint32_t location = 0;  // its Profile location
  uint32_t object = 0;    // object rank, 0: none
  uint64_t position = 0;
  bool same(const ChainElem& o) const { return object == o.object && position == o.position; }
  bool after(const ChainElem& o) const {
    return object != o.object ? object > o.object : position > o.position;
  }
};

class CallTree {
 public:
  struct Node {
    uint32_t parent = UINT32_MAX;
    std::vector<ChainElem> frames;
    uint64_t hit = 0, children_hit = 0;
    uint64_t count = 0, children_count = 0;
    std::vector<uint32_t> children;  // by their first frame, the greater first
    uint64_t cumul() const { return hit + children_hit; }
    uint64_t cumul_count() const { return count + children_count; }
  };

  CallTree() { nodes_.emplace_back(); }
  // Adds one sample's chain (`count` samples of `period`); empty chains add nothing.
  void add(std::span<const ChainElem> chain, uint64_t period, uint64_t count);
  size_t max_depth() const { return max_depth_; }
  const Node& node(uint32_t id) const { return nodes_[id]; }
  static constexpr uint32_t kRoot = 0;

  // perf's sorts for printing. Graph: every node's children whose cumulated
  // period reaches min_hit, largest first (`relative`: min_hit is that
  // fraction of each node's children_hit, rounded up). Flat and folded: the
  // nodes where chains end, with hit >= min_hit, largest first.
  std::vector<std::vector<uint32_t>> sort_graph(uint64_t min_hit) const;
  std::vector<std::vector<uint32_t>> sort_graph_relative(double fraction) const;
  std::vector<uint32_t> sort_flat(uint64_t min_hit) const;

 private:
  void add_to_children(uint32_t parent, std::span<const ChainElem> chain, uint64_t period, uint64_t count);
  // 1: added (part of the chain matched this node); 0: its first frame differs.
  bool add_to_node(uint32_t id, std::span<const ChainElem> chain, uint64_t period, uint64_t count);
  void split(uint32_t id, size_t keep, std::span<const ChainElem> rest, uint64_t period, uint64_t count);
  uint32_t new_child(uint32_t parent, std::span<const ChainElem> chain, uint64_t period, uint64_t count);
  void insert_child(uint32_t parent, uint32_t child);
  void collect_flat(uint32_t id, uint64_t min_hit, std::vector<uint32_t>& out) const;

  std::vector<Node> nodes_;
  size_t max_depth_ = 0;
};

}  // namespace sonde::report
