#include "report/call_tree.h"

#include <algorithm>
#include <cmath>

namespace sonde::report {

void CallTree::add(std::span<const ChainElem> chain, uint64_t period, uint64_t count) {
  if (chain.empty()) return;
  add_to_children(kRoot, chain, period, count);
  max_depth_ = std::max(max_depth_, chain.size());
}

void CallTree::add_to_children(uint32_t parent, std::span<const ChainElem> chain, uint64_t period, uint64_t count) {
  // The child whose first frame is the chain's, if any (children are
  // ordered by first frame, and no two share one).
  const std::vector<uint32_t>& kids = nodes_[parent].children;
  auto it = std::lower_bound(kids.begin(), kids.end(), chain.front(),
                             [&](uint32_t k, const ChainElem& e) { return nodes_[k].frames.front().after(e); });
  if (it == kids.end() || !add_to_node(*it, chain, period, count)) new_child(parent, chain, period, count);
  nodes_[parent].children_hit += period;
  nodes_[parent].children_count += count;
}

bool CallTree::add_to_node(uint32_t id, std::span<const ChainElem> chain, uint64_t period, uint64_t count) {
  size_t matched = 0;
  const size_t run = nodes_[id].frames.size();
  while (matched < run && matched < chain.size() && chain[matched].same(nodes_[id].frames[matched])) ++matched;
  if (matched == 0) return false;
  if (matched < run) {
    split(id, matched, chain.subspan(matched), period, count);
  } else if (matched == chain.size()) {
    nodes_[id].hit += period;
    nodes_[id].count += count;
  } else {
    add_to_children(id, chain.subspan(matched), period, count);
  }
  return true;
}

// The node keeps its first `keep` frames; the rest, with its counts and
// children, move to a new child; the chain's remainder (if any) becomes a
// second child.
void CallTree::split(uint32_t id, size_t keep, std::span<const ChainElem> rest, uint64_t period, uint64_t count) {
  Node tail;
  tail.parent = id;
  tail.frames.assign(nodes_[id].frames.begin() + static_cast<long>(keep), nodes_[id].frames.end());
  tail.hit = nodes_[id].hit, tail.children_hit = nodes_[id].children_hit;
  tail.count = nodes_[id].count, tail.children_count = nodes_[id].children_count;
  tail.children = std::move(nodes_[id].children);
  const uint32_t tail_id = static_cast<uint32_t>(nodes_.size());
  for (uint32_t c : tail.children) nodes_[c].parent = tail_id;
  nodes_.push_back(std::move(tail));
  Node& n = nodes_[id];
  n.frames.resize(keep);
  n.children = {tail_id};
  n.children_hit = nodes_[tail_id].cumul();
  n.children_count = nodes_[tail_id].cumul_count();
  if (rest.empty()) {
    n.hit = period, n.count = count;
    return;
  }
  n.hit = 0, n.count = 0;
  n.children_hit += period;
  n.children_count += count;
  new_child(id, rest, period, count);
}

uint32_t CallTree::new_child(uint32_t parent, std::span<const ChainElem> chain, uint64_t period, uint64_t count) {
  Node c;
  c.parent = parent;
  c.frames.assign(chain.begin(), chain.end());
  c.hit = period;
  c.count = count;
  const uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(std::move(c));
  insert_child(parent, id);
  return id;
}

void CallTree::insert_child(uint32_t parent, uint32_t child) {
  std::vector<uint32_t>& kids = nodes_[parent].children;
  const ChainElem& first = nodes_[child].frames.front();
  auto it = std::lower_bound(kids.begin(), kids.end(), first,
                             [&](uint32_t k, const ChainElem& e) { return nodes_[k].frames.front().after(e); });
  kids.insert(it, child);
}

namespace {

// Largest first; equal values keep their order (perf inserts them after).
void sort_by(std::vector<uint32_t>& ids, const std::vector<CallTree::Node>& nodes, bool by_hit) {
  std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
    return by_hit ? nodes[a].hit > nodes[b].hit : nodes[a].cumul() > nodes[b].cumul();
  });
}

}  // namespace

std::vector<std::vector<uint32_t>> CallTree::sort_graph(uint64_t min_hit) const {
  std::vector<std::vector<uint32_t>> out(nodes_.size());
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    for (uint32_t c : nodes_[id].children)
      if (nodes_[c].cumul() >= min_hit) out[id].push_back(c);
    sort_by(out[id], nodes_, false);
  }
  return out;
}

std::vector<std::vector<uint32_t>> CallTree::sort_graph_relative(double fraction) const {
  std::vector<std::vector<uint32_t>> out(nodes_.size());
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    const auto min_hit = static_cast<uint64_t>(std::ceil(double(nodes_[id].children_hit) * fraction));
    for (uint32_t c : nodes_[id].children)
      if (nodes_[c].cumul() >= min_hit) out[id].push_back(c);
    sort_by(out[id], nodes_, false);
  }
  return out;
}

std::vector<uint32_t> CallTree::sort_flat(uint64_t min_hit) const {
  std::vector<uint32_t> out;
  collect_flat(kRoot, min_hit, out);
  sort_by(out, nodes_, true);
  return out;
}

// Children first, then the node (perf's post-order insertion).
void CallTree::collect_flat(uint32_t id, uint64_t min_hit, std::vector<uint32_t>& out) const {
  for (uint32_t c : nodes_[id].children) collect_flat(c, min_hit, out);
  if (nodes_[id].hit && nodes_[id].hit >= min_hit) out.push_back(id);
}

}  // namespace sonde::report
