// The frame tree of a flame graph: one node per distinct root-to-frame path
// of frames (convert/frames.h), with self and total weight (period) and
// samples of one event, children heaviest first. Built in one pass over the
// Profile's stack prefix tree, so its size depends on the distinct stacks,
// not on the samples.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "analysis/profile.h"
#include "convert/frames.h"

namespace sonde::convert {

struct TreeNode {
  uint32_t frame = 0;
  uint32_t parent = UINT32_MAX;
  uint64_t self_w = 0, self_c = 0;
  uint64_t total_w = 0, total_c = 0;
};

class FlameTree {
 public:
  FlameTree(const analysis::Profile& p, const FrameTable& table, uint32_t event);

  const std::vector<TreeNode>& nodes() const { return nodes_; }
  std::span<const uint32_t> children(uint32_t n) const {
    return {kids_.data() + first_[n], kids_.data() + first_[n + 1]};
  }

 private:
  uint32_t child(uint32_t parent, uint32_t frame);

  std::vector<TreeNode> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint32_t> first_, kids_;
};

struct FunctionTotals {
  uint64_t self_w = 0, self_c = 0, total_w = 0, total_c = 0;
};

// Self and total per frame; a frame recursing into itself counts once per
// stack (only its outermost occurrence adds to the total).
std::vector<FunctionTotals> function_totals(const FlameTree& t, size_t frame_count);

}  // namespace sonde::convert
