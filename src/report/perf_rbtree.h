// The order of entries in a red-black tree filled the way perf fills its
// output tree (util/hist.c __hists__insert_output_entry with lib/rbtree.c):
// each new entry goes left of a node when `before(new, node)`, else right,
// then the tree is rebalanced. With a comparison that is not a total order
// (perf's Children comparison looks at call-chain depths only between rows
// of one thread), the result depends on the tree's shape, so the shape is
// rebuilt exactly: the standard red-black insertion, as Linux does it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sonde::report {

// The tree's nodes in one array; the descent is inlined into each caller's
// comparison (a report compares rows n log n times: no std::function call
// per comparison), the linking and rebalancing is shared.
class PerfRbTree {
 public:
  explicit PerfRbTree(size_t capacity) { n_.reserve(capacity); }

  template <typename Before>
  void insert(uint32_t item, Before&& before) {
    uint32_t parent = kNil;
    bool go_left = false;
    for (uint32_t at = root_; at != kNil;) {
      parent = at;
      go_left = before(item, n_[at].item);
      at = go_left ? n_[at].left : n_[at].right;
    }
    link(item, parent, go_left);
  }

  // The items in the tree's in-order.
  std::vector<uint32_t> in_order() const;

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    uint32_t item;
    uint32_t parent = kNil, left = kNil, right = kNil;
    bool red = true;
  };

  void link(uint32_t item, uint32_t parent, bool go_left);
  void in_order(uint32_t at, std::vector<uint32_t>& out) const;
  bool red(uint32_t x) const { return x != kNil && n_[x].red; }
  void rotate_left(uint32_t x);
  void rotate_right(uint32_t x);
  void replace_child(uint32_t x, uint32_t y);
  void fix(uint32_t z);

  std::vector<Node> n_;
  uint32_t root_ = kNil;
};

// `items` in insertion order; returns them in the tree's in-order.
template <typename Before>
std::vector<uint32_t> rbtree_order(const std::vector<uint32_t>& items, Before&& before) {
  PerfRbTree t(items.size());
  for (uint32_t item : items) t.insert(item, before);
  return t.in_order();
}

}  // namespace sonde::report
