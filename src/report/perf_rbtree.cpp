#include "report/perf_rbtree.h"

namespace sonde::report {

void PerfRbTree::link(uint32_t item, uint32_t parent, bool go_left) {
  const uint32_t id = static_cast<uint32_t>(n_.size());
  n_.push_back({item});
  n_[id].parent = parent;
  if (parent == kNil) root_ = id;
  else (go_left ? n_[parent].left : n_[parent].right) = id;
  fix(id);
}

std::vector<uint32_t> PerfRbTree::in_order() const {
  std::vector<uint32_t> out;
  out.reserve(n_.size());
  in_order(root_, out);
  return out;
}

void PerfRbTree::in_order(uint32_t at, std::vector<uint32_t>& out) const {
  if (at == kNil) return;
  in_order(n_[at].left, out);
  out.push_back(n_[at].item);
  in_order(n_[at].right, out);
}

void PerfRbTree::rotate_left(uint32_t x) {
  const uint32_t y = n_[x].right;
  n_[x].right = n_[y].left;
  if (n_[y].left != kNil) n_[n_[y].left].parent = x;
  replace_child(x, y);
  n_[y].left = x;
  n_[x].parent = y;
}

void PerfRbTree::rotate_right(uint32_t x) {
  const uint32_t y = n_[x].left;
  n_[x].left = n_[y].right;
  if (n_[y].right != kNil) n_[n_[y].right].parent = x;
  replace_child(x, y);
  n_[y].right = x;
  n_[x].parent = y;
}

// y takes x's place under x's parent.
void PerfRbTree::replace_child(uint32_t x, uint32_t y) {
  const uint32_t p = n_[x].parent;
  n_[y].parent = p;
  if (p == kNil) root_ = y;
  else if (n_[p].left == x) n_[p].left = y;
  else n_[p].right = y;
}

void PerfRbTree::fix(uint32_t z) {
  while (red(n_[z].parent)) {
    const uint32_t p = n_[z].parent, g = n_[p].parent;
    const bool left_side = n_[g].left == p;
    const uint32_t uncle = left_side ? n_[g].right : n_[g].left;
    if (red(uncle)) {  // recolour and go up
      n_[p].red = n_[uncle].red = false;
      n_[g].red = true;
      z = g;
      continue;
    }
    if (left_side) {
      if (z == n_[p].right) rotate_left(p), z = p;
      n_[n_[z].parent].red = false;
      n_[g].red = true;
      rotate_right(g);
    } else {
      if (z == n_[p].left) rotate_right(p), z = p;
      n_[n_[z].parent].red = false;
      n_[g].red = true;
      rotate_left(g);
    }
    break;
  }
  n_[root_].red = false;
}

}  // namespace sonde::report
