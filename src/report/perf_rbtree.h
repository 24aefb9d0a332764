// The order of entries in a red-black tree filled the way perf fills its
// output tree (util/hist.c __hists__insert_output_entry with lib/rbtree.c):
// each new entry goes left of a node when `before(new, node)`, else right,
// then the tree is rebalanced. With a comparison that is not a total order
// (perf's Children comparison looks at call-chain depths only between rows
// of one thread), the result depends on the tree's shape, so the shape is
// rebuilt exactly: the standard red-black insertion, as Linux does it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace sonde::report {

// `items` in insertion order; returns them in the tree's in-order.
std::vector<uint32_t> rbtree_order(const std::vector<uint32_t>& items,
                                   const std::function<bool(uint32_t, uint32_t)>& before);

}  // namespace sonde::report
