#include "convert/flame_tree.h"

#include <algorithm>

namespace sonde::convert {

FlameTree::FlameTree(const analysis::Profile& p, const FrameTable& table, uint32_t event) {
  nodes_.push_back({});  // the root: "all"
  // Map every stack-tree node to its flame node. A stack node's parent
  // always precedes it, so one pass in index order suffices.
  std::vector<uint32_t> of_stack(p.nodes.size(), 0);
  std::vector<uint32_t> frames;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const auto& sn = p.nodes[i];
    uint32_t at = sn.parent == UINT32_MAX ? 0 : of_stack[sn.parent];
    frames.clear();
    table.location_frames(sn.location, frames);
    for (uint32_t f : frames) at = child(at, f);
    of_stack[i] = at;
  }
  for (const auto& s : p.samples) {
    if (s.event != event) continue;
    auto& n = nodes_[s.stack == UINT32_MAX ? 0 : of_stack[s.stack]];
    n.self_w += s.period;
    n.self_c += s.count;
  }
  // Children follow their parents: a reverse pass accumulates totals.
  for (size_t i = nodes_.size(); i-- > 0;) {
    auto& n = nodes_[i];
    n.total_w += n.self_w;
    n.total_c += n.self_c;
    if (n.parent != UINT32_MAX) {
      nodes_[n.parent].total_w += n.total_w;
      nodes_[n.parent].total_c += n.total_c;
    }
  }
  // Children lists (CSR), heaviest first so the hot path is on the left.
  first_.assign(nodes_.size() + 1, 0);
  for (size_t i = 1; i < nodes_.size(); ++i) first_[nodes_[i].parent + 1]++;
  for (size_t i = 0; i < nodes_.size(); ++i) first_[i + 1] += first_[i];
  kids_.resize(nodes_.size() > 0 ? nodes_.size() - 1 : 0);
  std::vector<uint32_t> fill(first_.begin(), first_.end() - 1);
  for (size_t i = 1; i < nodes_.size(); ++i) kids_[fill[nodes_[i].parent]++] = static_cast<uint32_t>(i);
  for (size_t i = 0; i < nodes_.size(); ++i)
    std::sort(kids_.begin() + first_[i], kids_.begin() + first_[i + 1],
              [&](uint32_t a, uint32_t b) { return nodes_[a].total_w > nodes_[b].total_w; });
}

uint32_t FlameTree::child(uint32_t parent, uint32_t frame) {
  uint64_t key = (uint64_t(parent) << 32) | frame;
  auto [it, fresh] = index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
  if (fresh) nodes_.push_back({frame, parent, 0, 0, 0, 0});
  return it->second;
}


std::vector<FunctionTotals> function_totals(const FlameTree& t, size_t frame_count) {
  std::vector<FunctionTotals> out(frame_count);
  std::vector<uint32_t> on_path(frame_count, 0);
  // Iterative DFS: (node, entered) pairs, to survive very deep stacks.
  std::vector<std::pair<uint32_t, bool>> todo{{0, false}};
  const auto& nodes = t.nodes();
  while (!todo.empty()) {
    auto [n, entered] = todo.back();
    todo.pop_back();
    const uint32_t f = nodes[n].frame;
    if (n == 0) {
      if (!entered) {
        todo.push_back({0, true});
        for (uint32_t c : t.children(0)) todo.push_back({c, false});
      }
      continue;
    }
    if (entered) {
      --on_path[f];
      continue;
    }
    auto& ft = out[f];
    ft.self_w += nodes[n].self_w;
    ft.self_c += nodes[n].self_c;
    if (on_path[f] == 0) ft.total_w += nodes[n].total_w, ft.total_c += nodes[n].total_c;
    ++on_path[f];
    todo.push_back({n, true});
    for (uint32_t c : t.children(n)) todo.push_back({c, false});
  }
  return out;
}

}  // namespace sonde::convert
