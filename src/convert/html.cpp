// HTML flame graph: the Profile is aggregated here, in C++, into a frame
// tree (one node per distinct root-to-frame path of frame names), so the page
// receives a tree whose size depends on the number of distinct stacks, not of
// samples. The tree is emitted in preorder as flat numbers; the page's script
// (flamegraph.js, embedded at build time with template.html) rebuilds
// typed arrays from it and draws on a canvas, skipping frames narrower than
// a pixel.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <span>
#include <unordered_map>

#include "convert/convert.h"
#include "format/offcpu_event.h"
#include "convert/frames.h"
#include "convert/html_assets.h"  // generated: kTemplateHtml, kFlamegraphJs
#include "util/error.h"

namespace sonde::convert {

namespace {

struct TreeNode {
  uint32_t frame = 0;
  uint32_t parent = UINT32_MAX;
  uint64_t self_w = 0, self_c = 0;
  uint64_t total_w = 0, total_c = 0;
};

class FlameTree {
 public:
  FlameTree(const analysis::Profile& p, const FrameTable& table, uint32_t event) {
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

  const std::vector<TreeNode>& nodes() const { return nodes_; }
  std::span<const uint32_t> children(uint32_t n) const {
    return {kids_.data() + first_[n], kids_.data() + first_[n + 1]};
  }

 private:
  uint32_t child(uint32_t parent, uint32_t frame) {
    uint64_t key = (uint64_t(parent) << 32) | frame;
    auto [it, fresh] = index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
    if (fresh) nodes_.push_back({frame, parent, 0, 0, 0, 0});
    return it->second;
  }

  std::vector<TreeNode> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint32_t> first_, kids_;
};

struct FunctionTotals {
  uint64_t self_w = 0, self_c = 0, total_w = 0, total_c = 0;
};

// Self and total per frame; a frame recursing into itself counts once per
// stack (only its outermost occurrence adds to the total).
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

std::string json_str(std::string_view s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The data sits inside <script type="application/json">: "</" must not
// appear in it (it could close the element). "<\/" is the same JSON string.
void append_script_safe(std::string& out, std::string_view json) {
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out.push_back(json[i]);
    }
  }
}

// The template's placeholders are replaced in one pass over the template
// alone: recorded text (an event name "@DATA@", a title "@SCRIPT@") that is
// substituted is never searched again, so no placeholder spelling in a
// recording can move or hide another. Each must appear as often as `count`.
struct Placeholder {
  std::string_view name;
  std::string_view text;
  int count;
};

void render_template(std::string_view tmpl, std::span<const Placeholder> fills, std::ostream& out) {
  std::vector<int> seen(fills.size(), 0);
  size_t at = 0;
  while (at < tmpl.size()) {
    size_t next = tmpl.find('@', at);
    if (next == std::string_view::npos) break;
    out.write(tmpl.data() + at, static_cast<std::streamsize>(next - at));
    at = next;
    size_t i = 0;
    while (i < fills.size() && !tmpl.substr(at).starts_with(fills[i].name)) ++i;
    if (i == fills.size()) {
      out.put('@');
      ++at;
      continue;
    }
    out.write(fills[i].text.data(), static_cast<std::streamsize>(fills[i].text.size()));
    ++seen[i];
    at += fills[i].name.size();
  }
  out.write(tmpl.data() + at, static_cast<std::streamsize>(tmpl.size() - at));
  for (size_t i = 0; i < fills.size(); ++i)
    if (seen[i] != fills[i].count)
      throw_runtime("html: template has {} {}, not {}", seen[i], fills[i].name, fills[i].count);
}

}  // namespace

void write_html(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out) {
  const uint32_t ev = primary_event(p);
  FrameTable table(p);
  const auto& frames = table.frames();
  FlameTree tree(p, table, ev);
  const auto& nodes = tree.nodes();

  std::string data;
  data.reserve(nodes.size() * 24 + frames.size() * 40 + 4096);
  auto it = std::back_inserter(data);
  const analysis::ProfileEvent* event = ev == UINT32_MAX ? nullptr : &p.events[ev];

  data += "{\"title\":" + json_str(opts.title);
  data += ",\"event\":" + json_str(event ? event->name : "");
  data += ",\"unit\":" + json_str(event ? event->unit : "events");
  // Off-CPU time is drawn in cold colours (flamegraph.js).
  data += std::string(",\"cold\":") + (event && format::is_offcpu_event_name(event->name) ? "true" : "false");
  data += ",\"host\":" + json_str(p.hostname);
  data += ",\"cmdline\":" + json_str(p.cmdline);
  data += ",\"otherEvents\":[";
  for (size_t i = 0; i < p.events.size(); ++i)
    if (i != ev) data += (data.back() == '[' ? "" : ",") + json_str(p.events[i].name);
  data += "]";

  // Objects, then frames as parallel arrays: name, object index, kind
  // (bit 0 kernel, bit 1 unresolved).
  std::unordered_map<std::string_view, uint32_t> dso_index;
  std::vector<uint32_t> frame_dso(frames.size());
  data += ",\"dsos\":[";
  for (size_t i = 0; i < frames.size(); ++i) {
    auto [pos, fresh] = dso_index.try_emplace(frames[i].dso, static_cast<uint32_t>(dso_index.size()));
    if (fresh) data += (pos->second ? "," : "") + json_str(frames[i].dso);
    frame_dso[i] = pos->second;
  }
  data += "],\"names\":[";
  for (size_t i = 0; i < frames.size(); ++i) data += (i ? "," : "") + json_str(frames[i].name);
  data += "],\"frameDso\":[";
  for (size_t i = 0; i < frames.size(); ++i) fmt::format_to(it, "{}{}", i ? "," : "", frame_dso[i]);
  data += "],\"kinds\":[";
  for (size_t i = 0; i < frames.size(); ++i)
    fmt::format_to(it, "{}{}", i ? "," : "", (frames[i].kernel ? 1 : 0) | (frames[i].resolved ? 0 : 2));

  // The tree in preorder, 4 numbers per node: frame, child count, total
  // weight (period), total samples. The root's frame is -1.
  data += "],\"tree\":[";
  std::vector<uint32_t> todo{0};
  bool first = true;
  while (!todo.empty()) {
    uint32_t n = todo.back();
    todo.pop_back();
    auto kids = tree.children(n);
    fmt::format_to(it, "{}{},{},{},{}", first ? "" : ",", n == 0 ? -1 : int64_t(nodes[n].frame), kids.size(),
                   nodes[n].total_w, nodes[n].total_c);
    first = false;
    for (size_t k = kids.size(); k-- > 0;) todo.push_back(kids[k]);
  }

  // Top functions by self weight: frame, self w, total w, self c, total c.
  auto totals = function_totals(tree, frames.size());
  std::vector<uint32_t> order;
  for (size_t i = 0; i < totals.size(); ++i)
    if (totals[i].total_c) order.push_back(static_cast<uint32_t>(i));
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (totals[a].self_w != totals[b].self_w) return totals[a].self_w > totals[b].self_w;
    return totals[a].total_w > totals[b].total_w;
  });
  if (order.size() > opts.top_functions) order.resize(opts.top_functions);
  data += "],\"top\":[";
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& t = totals[order[i]];
    fmt::format_to(it, "{}{},{},{},{},{}", i ? "," : "", order[i], t.self_w, t.total_w, t.self_c, t.total_c);
  }
  data += "]}";

  std::string safe_data;
  safe_data.reserve(data.size() + 64);
  append_script_safe(safe_data, data);
  std::string title = opts.title.empty() ? "sonde flame graph" : opts.title;
  std::string escaped_title;
  for (char c : title) {
    switch (c) {
      case '<': escaped_title += "&lt;"; break;
      case '>': escaped_title += "&gt;"; break;
      case '&': escaped_title += "&amp;"; break;
      default: escaped_title.push_back(c);
    }
  }
  const Placeholder fills[] = {
      {"@TITLE@", escaped_title, 2},  // <title> and <h1>
      {"@DATA@", safe_data, 1},
      {"@SCRIPT@", kFlamegraphJs, 1},
  };
  render_template(kTemplateHtml, fills, out);
  if (!out) throw_runtime("html: cannot write the output");
}

}  // namespace sonde::convert
