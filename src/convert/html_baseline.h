// A differential flame graph's baseline weights (Gregg's difffolded): each
// baseline stack's weight lands on the node of the drawn tree with the same
// path of frames, matched by name and object key (convert.h HtmlBaseline).
// Stacks the drawn profile lacks are left out of the tree but kept in the
// baseline's total, so shares on both sides are of everything recorded.
#pragma once

#include <cstdint>
#include <vector>

#include "convert/convert.h"
#include "convert/flame_tree.h"

namespace sonde::convert {

struct BaselineWeights {
  std::vector<uint64_t> total_w;  // per node of the drawn tree, with its subtree
  uint64_t all_w = 0, all_c = 0;  // the baseline event's whole weight and samples
};

// `event`: the baseline's event to compare (the drawn one's name).
BaselineWeights baseline_weights(const FlameTree& drawn, const FrameTable& drawn_frames, const HtmlBaseline& b,
                                 uint32_t event);

}  // namespace sonde::convert
