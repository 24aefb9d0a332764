// The data of the analysis page (`sonde convert --to html`): one JSON object
// that the page's scripts (page/*.js) decode into typed arrays. Compact by
// construction (docs/export.md, "The page's data"):
//   - strings once: function names, objects, source files;
//   - the stacks as a prefix tree of frames (parent, frame, line), so a
//     stack is one node number;
//   - the samples as columns (bin, thread, node, event, count, period), one
//     row per distinct (bin, thread, node, event), base64 little-endian
//     typed arrays the page maps without parsing numbers;
//   - SDT probe hits, off-CPU intervals and lost-sample reports as lists.
#pragma once

#include <string>
#include <string_view>

#include "analysis/profile.h"
#include "analysis/timeline.h"

namespace sonde::convert {

struct PageFacts {
  std::string title;
  std::string shown_event;  // the event the flame graph starts with ("" : the first)
  std::string empty_reason;  // non-empty: the page says this instead of views
  std::string annotate_json;  // the annotate view's data (annotate/page_annotations.h), "" for none
};

// The JSON text (not yet made safe for a <script> element). `timeline` may
// be null: every sample is then in one bin.
std::string page_data_json(const analysis::Profile& p, const analysis::Timeline* timeline, const PageFacts& facts);

// `s` as a JSON string literal, quotes included (invalid UTF-8 replaced).
std::string json_str(std::string_view s);

// Standard base64 of `n` bytes.
std::string base64(const void* data, size_t n);

}  // namespace sonde::convert
