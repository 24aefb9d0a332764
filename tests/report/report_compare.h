// sonde report against perf report --stdio on the same recording, line for
// line. perf ends its report with a random tip ("#\n# (Tip: ...)\n#\n"),
// which sonde does not print: it is cut out of perf's text; sonde's own
// "# note: ..." lines (symbolization notes) are cut out of sonde's. perf
// 6.1 prints fractal's "[...]" (the parent's own share) followed by
// " (inlined)" when the uninitialised flag of its made-up symbol happens
// to be set: that suffix is cut out of perf's text, and so are the header
// lines of BPF programs (without_bpf_programs).
#pragma once

#include <regex>
#include <string>

#include "support/test_support.h"

namespace sonde::test {

inline std::string without_tip(std::string text) {
  const size_t at = text.rfind("#\n# (Tip:");
  if (at == std::string::npos) return text;
  const size_t end = text.find("\n#\n", at + 2);
  return text.erase(at, end == std::string::npos ? std::string::npos : end + 3 - at);
}

inline std::string without_stray_inlined(std::string text) {
  const std::string bad = "[...] (inlined)\n";
  for (size_t at = text.find(bad); at != std::string::npos; at = text.find(bad, at)) text.replace(at, bad.size(), "[...]\n");
  return text;
}

inline std::string without_notes(const std::string& text) {
  std::string out;
  for (const auto& l : lines(text))
    if (!l.starts_with("# note: ")) out += l + "\n";
  return out;
}

// perf 6.1's quirk with frames it cannot name (a stripped object, a vdso
// without that symbol): with --children it keys the sample's own entry by
// the object-relative address ([.] 0x0000000000001185, the self row) and the
// call-chain entries by the absolute one ([.] 0x0000556b301bf185, a second
// row with 0% self), so one frame is two rows. sonde keeps one row per frame
// (relative address, self and children together), which is right. Both
// tools' rows of unnamed frames are cut, with the call graph printed under
// them: whatever else the reports say must still agree. Shown on a synthetic
// recording by PerfQuirks.UnnamedFrameIsTwoChildrenRowsInPerf; which tests'
// inputs have such frames on this kernel: KernelDrift.* (docs/testing.md).
inline std::string without_unnamed_frame_rows(const std::string& text) {
  static const std::regex unnamed_row(R"(^ {0,10}[0-9.]+%.*\[[.k]\] 0x[0-9a-f]+\s*$)");
  static const std::regex any_row(R"(^ {0,10}[0-9.]+%.*)");  // graph lines are indented further
  std::string out;
  bool in_cut_graph = false;
  for (const auto& l : lines(text)) {
    if (in_cut_graph && l.empty()) {
      in_cut_graph = false;  // the blank line that ends the cut row's graph
      continue;
    }
    if (in_cut_graph && !l.starts_with("#") && !std::regex_match(l, any_row)) continue;
    in_cut_graph = std::regex_match(l, unnamed_row);
    if (!in_cut_graph) out += l + "\n";
  }
  return out;
}

struct ReportPair {
  RunResult ours, perf;
  std::string difference;  // "" when equal
};

// `sonde report -i DATA SONDE_ARGS` and `perf report --stdio -i DATA PERF_ARGS`.
inline ReportPair compare_reports(const std::string& data, const std::string& sonde_args, const std::string& perf_args) {
  ReportPair r;
  r.ours = sh(sonde_bin() + " report -i " + data + " " + sonde_args);
  r.perf = sh("perf report --stdio -i " + data + " " + perf_args + " 2>/dev/null");
  r.difference = first_difference(without_unnamed_frame_rows(without_notes(r.ours.out)),
                                  without_unnamed_frame_rows(without_bpf_programs(without_stray_inlined(without_tip(r.perf.out)))));
  return r;
}

}  // namespace sonde::test
