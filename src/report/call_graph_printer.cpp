#include "report/call_graph_printer.h"

#include <vector>

namespace sonde::report {

namespace {

using Node = CallTree::Node;
using Sorted = std::vector<std::vector<uint32_t>>;

class GraphWriter {
 public:
  GraphWriter(const CallTree& tree, const GraphPrint& how, fmt::memory_buffer& out) : tree_(tree), how_(how), out_(out) {}

  void graph(uint64_t total, uint64_t entry_period);
  void flat(uint64_t total);
  void folded(uint64_t total);

 private:
  bool relative() const { return how_.options.mode == GraphMode::kFractal; }
  bool limit_reached(uint32_t printed) const { return printed == how_.options.print_limit; }
  void margin(int left) { fmt::format_to(fmt::appender(out_), "{:{}}", "", 12 + left); }
  void value(uint64_t period, uint64_t count, uint64_t total);
  void branch_line(int depth, uint32_t mask, int left);
  void frame_line(uint64_t period, uint64_t count, const ChainElem* frame, std::string_view text, int depth,
                  uint32_t mask, bool first, uint64_t total, int left);
  void children(uint32_t id, uint64_t total, int depth, uint32_t mask, int left);
  void path(uint32_t id, std::vector<const ChainElem*>& frames) const;

  const CallTree& tree_;
  const GraphPrint& how_;
  fmt::memory_buffer& out_;
  Sorted sorted_;
};

void GraphWriter::value(uint64_t period, uint64_t count, uint64_t total) {
  auto it = fmt::appender(out_);
  switch (how_.options.value) {
    case GraphValue::kPeriod: fmt::format_to(it, "{}", period); break;
    case GraphValue::kCount: fmt::format_to(it, "{}", count); break;
    case GraphValue::kPercent: fmt::format_to(it, "{:.2f}%", total ? 100.0 * double(period) / double(total) : 0.0); break;
  }
}

// The line above a branch: the levels still open.
void GraphWriter::branch_line(int depth, uint32_t mask, int left) {
  margin(left);
  for (int i = 0; i < depth; ++i) fmt::format_to(fmt::appender(out_), "{}", (mask & (1u << i)) ? "|          " : "           ");
  out_.push_back('\n');
}

// A frame of a node: its node's value on the node's first frame.
void GraphWriter::frame_line(uint64_t period, uint64_t count, const ChainElem* frame, std::string_view text, int depth,
                             uint32_t mask, bool first, uint64_t total, int left) {
  margin(left);
  for (int i = 0; i < depth; ++i) {
    out_.push_back((mask & (1u << i)) ? '|' : ' ');
    if (first && i == depth - 1) {
      fmt::format_to(fmt::appender(out_), "--");
      value(period, count, total);
      fmt::format_to(fmt::appender(out_), "--");
    } else {
      fmt::format_to(fmt::appender(out_), "          ");
    }
  }
  fmt::format_to(fmt::appender(out_), "{}\n", frame ? how_.name(*frame) : std::string(text));
}

void GraphWriter::children(uint32_t id, uint64_t total, int depth, uint32_t mask, int left) {
  const std::vector<uint32_t>& kids = sorted_[id];
  uint64_t remaining = total;
  uint64_t counted = 0;
  uint32_t new_mask = mask, printed = 0;
  const Node* last = nullptr;
  for (size_t k = 0; k < kids.size(); ++k) {
    const Node& child = tree_.node(kids[k]);
    last = &child;
    remaining -= child.cumul();
    counted += child.cumul_count();
    // A level's line ends at its last branch, unless "[...]" follows it.
    if (k + 1 == kids.size() && (!relative() || !remaining)) new_mask &= ~(1u << (depth - 1));
    branch_line(depth, mask, left);
    for (size_t i = 0; i < child.frames.size(); ++i)
      frame_line(child.cumul(), child.cumul_count(), &child.frames[i], {}, depth, new_mask, i == 0, total, left);
    children(kids[k], relative() ? child.children_hit : total, depth + 1, new_mask | (1u << depth), left);
    if (limit_reached(++printed)) break;
  }
  // Fractal: what the shown branches leave of their parent.
  if (relative() && remaining && remaining != total) {
    uint64_t rest_count = 0;
    if (how_.options.value == GraphValue::kCount && last && last->parent != UINT32_MAX) {
      const uint64_t all = tree_.node(last->parent).children_count;
      if (all <= counted) return;
      rest_count = all - counted;
    }
    new_mask &= ~(1u << (depth - 1));
    frame_line(remaining, rest_count, nullptr, "[...]", depth, new_mask, true, total, left);
  }
}

void GraphWriter::graph(uint64_t total, uint64_t entry_period) {
  const CallGraphOptions& o = how_.options;
  sorted_ = relative() ? tree_.sort_graph_relative(o.threshold / 100.0)
                       : tree_.sort_graph(static_cast<uint64_t>(double(total) * (o.threshold / 100.0)));
  const size_t start = out_.size();
  uint32_t from = CallTree::kRoot;
  int left = 0;
  const std::vector<uint32_t>& top = sorted_[CallTree::kRoot];
  // One chain making the whole row: its frames without a percentage.
  if (top.size() == 1 && tree_.node(top[0]).cumul() == entry_period) {
    const Node& only = tree_.node(top[0]);
    bool started = false;
    uint32_t printed = 0;
    for (size_t i = 0; i < only.frames.size(); ++i) {
      if (i == 0 && how_.skip_first_frame) continue;
      if (!started) {
        margin(left);
        fmt::format_to(fmt::appender(out_), "|\n");
        margin(left);
        fmt::format_to(fmt::appender(out_), "---");
        left += 3;
        started = true;
      } else {
        margin(left);
      }
      fmt::format_to(fmt::appender(out_), "{}\n", how_.name(only.frames[i]));
      if (limit_reached(++printed)) break;
    }
    from = top[0];
  }
  children(from, relative() ? entry_period : total, 1, 1, left);
  if (out_.size() != start) out_.push_back('\n');
}

// The frames from the root to the end of node `id`.
void GraphWriter::path(uint32_t id, std::vector<const ChainElem*>& frames) const {
  if (id == CallTree::kRoot || id == UINT32_MAX) return;
  path(tree_.node(id).parent, frames);
  for (const ChainElem& e : tree_.node(id).frames) frames.push_back(&e);
}

void GraphWriter::flat(uint64_t total) {
  const auto min_hit = static_cast<uint64_t>(double(total) * (how_.options.threshold / 100.0));
  uint32_t printed = 0;
  std::vector<const ChainElem*> frames;
  for (uint32_t id : tree_.sort_flat(min_hit)) {
    const Node& n = tree_.node(id);
    fmt::format_to(fmt::appender(out_), "           ");
    value(n.cumul(), n.cumul_count(), total);
    out_.push_back('\n');
    frames.clear();
    path(id, frames);
    for (const ChainElem* e : frames) fmt::format_to(fmt::appender(out_), "                {}\n", how_.name(*e));
    out_.push_back('\n');
    if (limit_reached(++printed)) break;
  }
}

void GraphWriter::folded(uint64_t total) {
  const auto min_hit = static_cast<uint64_t>(double(total) * (how_.options.threshold / 100.0));
  uint32_t printed = 0;
  std::vector<const ChainElem*> frames;
  for (uint32_t id : tree_.sort_flat(min_hit)) {
    const Node& n = tree_.node(id);
    value(n.hit, n.count, total);
    out_.push_back(' ');
    frames.clear();
    path(id, frames);
    for (size_t i = 0; i < frames.size(); ++i) fmt::format_to(fmt::appender(out_), "{}{}", i ? ";" : "", how_.name(*frames[i]));
    out_.push_back('\n');
    if (limit_reached(++printed)) break;
  }
}

}  // namespace

void print_call_graph(const CallTree& tree, const GraphPrint& how, uint64_t total, uint64_t entry_period,
                      fmt::memory_buffer& out) {
  GraphWriter w(tree, how, out);
  switch (how.options.mode) {
    case GraphMode::kGraph:
    case GraphMode::kFractal: return w.graph(total, entry_period);
    case GraphMode::kFlat: return w.flat(total);
    case GraphMode::kFolded: return w.folded(total);
    case GraphMode::kNone: return;
  }
}

}  // namespace sonde::report
