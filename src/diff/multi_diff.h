// `sonde diff F0 F1 F2...`: perf diff's layout for three or more files: the
// baseline F0's share, then one delta (or ratio) column per other file,
// named "Delta Abs/1", "Delta Abs/2"... and a "Data files" list first.
#pragma once

#include <string>
#include <vector>

#include "diff/diff_table.h"

namespace sonde::diff {

// `pairs[i]`: compute_diff(F0, F(i+1)); `paths`: F0, F1, ... as given.
// Rows are the first pair's in its order, then those only later pairs have.
std::string format_multi_diff_text(const std::vector<std::vector<EventDiff>>& pairs,
                                   const std::vector<std::string>& paths, const DiffOptions& o);

}  // namespace sonde::diff
