// `sonde probe -L` takes perf's line range (perf-probe.txt, "LINE RANGE"):
//   FUNC[@SRC][:START[-END|+COUNT]]   lines relative to FUNC's declaration
//   SRC[:START[-END|+COUNT]]          absolute lines of a source file
// A name with '/' or '.' and no '@' is a source file, as perf decides.
#pragma once

#include <climits>
#include <string>

namespace sonde::probe {

struct LineRange {
  std::string function;  // "" for a source file range
  std::string file;      // @SRC, or the source file
  int start = 0;
  int end = INT_MAX;     // INT_MAX: to the last probeable line and a few more
  bool has_start = false;
};

// Throws a usage error for a bad range ("f:3-1", "f:x", "").
LineRange parse_line_range(const std::string& text);

}  // namespace sonde::probe
