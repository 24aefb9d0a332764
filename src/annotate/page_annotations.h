// The annotate view's data for the HTML page (`convert --to html`): the
// hottest functions' instructions and source lines, and their costs as
// columns the page sums for the current selection: one row per (bin,
// thread, event, instruction) with self samples and period, and on call
// instructions the samples below them (inclusive). Capped to the hottest
// kMaxFunctions functions by self samples and kMaxRows rows, so a page
// stays a few MB (docs/export.md, docs/annotate.md).
#pragma once

#include <cstddef>
#include <string>

#include "analysis/profile.h"
#include "analysis/timeline.h"
#include "symbol/symbolizer.h"

namespace sonde::annotate {

struct PageAnnotateOptions {
  size_t max_functions = 50;
  size_t max_rows = 500000;
};

// The JSON object the page reads as D.annotate ("" when nothing could be
// annotated). `timeline` may be null (one bin). Functions that cannot be
// annotated (no code found) are left out; their reasons go to `notes`.
std::string page_annotations_json(const analysis::Profile& p, const analysis::Timeline* timeline,
                                  Symbolizer& symbolizer, const PageAnnotateOptions& opts,
                                  std::vector<std::string>& notes);

}  // namespace sonde::annotate
