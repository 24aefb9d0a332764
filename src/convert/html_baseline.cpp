#include "convert/html_baseline.h"

#include <string>
#include <unordered_map>

namespace sonde::convert {

namespace {

// One id per (name, object key) text, shared by both sides.
class FrameKeys {
 public:
  uint32_t id(const Frame& f, bool in_baseline, const HtmlBaseline& b) {
    std::string key(f.name);
    key += '\0';
    key += b.object_key ? b.object_key(f, in_baseline) : std::string(f.dso);
    return ids_.try_emplace(std::move(key), static_cast<uint32_t>(ids_.size())).first->second;
  }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace

BaselineWeights baseline_weights(const FlameTree& drawn, const FrameTable& drawn_frames, const HtmlBaseline& b,
                                 uint32_t event) {
  const auto& nodes = drawn.nodes();
  BaselineWeights out;
  out.total_w.assign(nodes.size(), 0);
  if (!b.profile || event == UINT32_MAX) return out;
  FrameKeys keys;
  std::vector<uint32_t> drawn_key(drawn_frames.frames().size());
  for (size_t f = 0; f < drawn_key.size(); ++f) drawn_key[f] = keys.id(drawn_frames.frames()[f], false, b);
  // The drawn tree's children by (parent, key).
  std::unordered_map<uint64_t, uint32_t> child_of;
  for (uint32_t n = 1; n < nodes.size(); ++n)
    child_of.try_emplace((uint64_t(nodes[n].parent) << 32) | drawn_key[nodes[n].frame], n);

  const FrameTable base_frames(*b.profile);
  const FlameTree base(*b.profile, base_frames, event);
  const auto& base_nodes = base.nodes();
  out.all_w = base_nodes[0].total_w, out.all_c = base_nodes[0].total_c;
  // A node's parent precedes it, so one pass in index order maps each
  // baseline node onto the drawn tree (or onto nothing).
  std::vector<uint32_t> onto(base_nodes.size(), UINT32_MAX);
  onto[0] = 0;
  out.total_w[0] += base_nodes[0].self_w;
  for (uint32_t n = 1; n < base_nodes.size(); ++n) {
    const uint32_t parent = onto[base_nodes[n].parent];
    if (parent == UINT32_MAX) continue;
    const uint32_t key = keys.id(base_frames.frames()[base_nodes[n].frame], true, b);
    auto it = child_of.find((uint64_t(parent) << 32) | key);
    if (it == child_of.end()) continue;
    onto[n] = it->second;
    out.total_w[it->second] += base_nodes[n].self_w;
  }
  for (size_t n = nodes.size(); n-- > 1;) out.total_w[nodes[n].parent] += out.total_w[n];
  return out;
}

}  // namespace sonde::convert
