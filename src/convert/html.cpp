// The HTML pages. `sonde convert --to html` writes the analysis page
// (page/page.html and page/*.js, its data from page_data.h: the views are
// computed in the browser, for any selection). `sonde diff --to html` writes
// the differential flame graph: the Profile is aggregated here, in C++, into a frame
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
#include "convert/flame_tree.h"
#include "convert/frames.h"
#include "convert/html_baseline.h"
#include "convert/html_assets.h"  // generated: kTemplateHtml, kFlamegraphJs
#include "convert/page_assets.h"  // generated: kPageHtml, kPageJs
#include "convert/page_data.h"
#include "format/event_kind.h"
#include "util/error.h"

namespace sonde::convert {

namespace {

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

namespace {

uint32_t event_named(const analysis::Profile& p, std::string_view name) {
  for (uint32_t i = 0; i < p.events.size(); ++i)
    if (p.events[i].name == name) return i;
  return UINT32_MAX;
}

}  // namespace

namespace {

std::string html_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

void write_analysis_page(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out) {
  PageFacts facts{opts.title, opts.event, opts.empty_reason, opts.annotate_json};
  std::string data = page_data_json(p, opts.timeline, facts);
  std::string safe_data;
  safe_data.reserve(data.size() + 64);
  append_script_safe(safe_data, data);
  std::string title = html_text(opts.title.empty() ? "sonde" : opts.title);
  const Placeholder fills[] = {
      {"@TITLE@", title, 2},  // <title> and <h1>
      {"@DATA@", safe_data, 1},
      {"@SCRIPT@", kPageJs, 1},
  };
  render_template(kPageHtml, fills, out);
  if (!out) throw_runtime("html: cannot write the output");
}

void write_flame_page(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out);

}  // namespace

void write_html(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out) {
  if (!opts.event.empty() && event_named(p, opts.event) == UINT32_MAX)
    throw_runtime("html: no event '{}' in the profile", opts.event);
  if (opts.baseline)
    write_flame_page(p, opts, out);
  else
    write_analysis_page(p, opts, out);
}

namespace {

// Top functions by self weight: frame, self w, total w, self c, total c.
void append_top_functions(const FlameTree& tree, size_t frame_count, size_t limit, std::string& data) {
  auto it = std::back_inserter(data);
  auto totals = function_totals(tree, frame_count);
  std::vector<uint32_t> order;
  for (size_t i = 0; i < totals.size(); ++i)
    if (totals[i].total_c) order.push_back(static_cast<uint32_t>(i));
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (totals[a].self_w != totals[b].self_w) return totals[a].self_w > totals[b].self_w;
    return totals[a].total_w > totals[b].total_w;
  });
  if (order.size() > limit) order.resize(limit);
  data += ",\"top\":[";
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& t = totals[order[i]];
    fmt::format_to(it, "{}{},{},{},{},{}", i ? "," : "", order[i], t.self_w, t.total_w, t.self_c, t.total_c);
  }
}

// The page: the template with its title, data and script filled in.
void render_flame_page(const std::string& data, const HtmlOptions& opts, std::ostream& out) {
  std::string safe_data;
  safe_data.reserve(data.size() + 64);
  append_script_safe(safe_data, data);
  const std::string escaped_title = html_text(opts.title.empty() ? "sonde flame graph" : opts.title);
  const Placeholder fills[] = {
      {"@TITLE@", escaped_title, 2},  // <title> and <h1>
      {"@DATA@", safe_data, 1},
      {"@SCRIPT@", kFlamegraphJs, 1},
  };
  render_template(kTemplateHtml, fills, out);
  if (!out) throw_runtime("html: cannot write the output");
}

void write_flame_page(const analysis::Profile& p, const HtmlOptions& opts, std::ostream& out) {
  const uint32_t ev = opts.event.empty() ? primary_event(p) : event_named(p, opts.event);
  if (!opts.event.empty() && ev == UINT32_MAX) throw_runtime("html: no event '{}' in the profile", opts.event);
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
  data += ",\"unit\":" + json_str(event ? event->unit() : "events");
  // Off-CPU time is drawn in cold colours (flamegraph.js).
  data += std::string(",\"cold\":") + (event && format::is_offcpu(event->kind) ? "true" : "false");
  data += ",\"host\":" + json_str(p.hostname);
  data += ",\"cmdline\":" + json_str(p.cmdline);
  data += ",\"otherEvents\":[";
  for (size_t i = 0; i < p.events.size(); ++i)
    if (i != ev) { data += data.back() == '[' ? "" : ","; data += json_str(p.events[i].name); }
  data += "]";

  // Objects, then frames as parallel arrays: name, object index, kind
  // (bit 0 kernel, bit 1 unresolved).
  std::unordered_map<std::string_view, uint32_t> dso_index;
  std::vector<uint32_t> frame_dso(frames.size());
  data += ",\"dsos\":[";
  for (size_t i = 0; i < frames.size(); ++i) {
    auto [pos, fresh] = dso_index.try_emplace(frames[i].dso, static_cast<uint32_t>(dso_index.size()));
    if (fresh) { data += pos->second ? "," : ""; data += json_str(frames[i].dso); }
    frame_dso[i] = pos->second;
  }
  data += "],\"names\":[";
  for (size_t i = 0; i < frames.size(); ++i) { data += i ? "," : ""; data += json_str(frames[i].name); }
  data += "],\"frameDso\":[";
  for (size_t i = 0; i < frames.size(); ++i) fmt::format_to(it, "{}{}", i ? "," : "", frame_dso[i]);
  data += "],\"kinds\":[";
  for (size_t i = 0; i < frames.size(); ++i)
    fmt::format_to(it, "{}{}", i ? "," : "", (frames[i].kernel ? 1 : 0) | (frames[i].resolved ? 0 : 2));

  // The tree in preorder, 4 numbers per node: frame, child count, total
  // weight (period), total samples. The root's frame is -1. A differential
  // graph adds the baseline's total weight per node, in the same order.
  std::optional<BaselineWeights> base;
  if (opts.baseline) base = baseline_weights(tree, table, *opts.baseline, event_named(*opts.baseline->profile, event ? event->name : ""));
  std::string base_tree;
  data += "],\"tree\":[";
  std::vector<uint32_t> todo{0};
  bool first = true;
  while (!todo.empty()) {
    uint32_t n = todo.back();
    todo.pop_back();
    auto kids = tree.children(n);
    fmt::format_to(it, "{}{},{},{},{}", first ? "" : ",", n == 0 ? -1 : int64_t(nodes[n].frame), kids.size(),
                   nodes[n].total_w, nodes[n].total_c);
    if (base) fmt::format_to(std::back_inserter(base_tree), "{}{}", first ? "" : ",", base->total_w[n]);
    first = false;
    for (size_t k = kids.size(); k-- > 0;) todo.push_back(kids[k]);
  }
  if (base)
    fmt::format_to(it, "],\"baseline\":{{\"label\":{},\"total\":{},\"samples\":{},\"tree\":[{}]}}",
                   json_str(opts.baseline->label), base->all_w, base->all_c, base_tree);
  else
    data += "]";

  append_top_functions(tree, frames.size(), opts.top_functions, data);
  data += "]}";
  render_flame_page(data, opts, out);
}

}  // namespace

}  // namespace sonde::convert
