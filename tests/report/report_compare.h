// sonde report against perf report --stdio on the same recording, line for
// line. perf ends its report with a random tip ("#\n# (Tip: ...)\n#\n"),
// which sonde does not print: it is cut out of perf's text; sonde's own
// "# note: ..." lines (symbolization notes) are cut out of sonde's. perf
// 6.1 prints fractal's "[...]" (the parent's own share) followed by
// " (inlined)" when the uninitialised flag of its made-up symbol happens
// to be set: that suffix is cut out of perf's text, and so are the header
// lines of BPF programs (without_bpf_programs).
#pragma once

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

struct ReportPair {
  RunResult ours, perf;
  std::string difference;  // "" when equal
};

// `sonde report -i DATA SONDE_ARGS` and `perf report --stdio -i DATA PERF_ARGS`.
inline ReportPair compare_reports(const std::string& data, const std::string& sonde_args, const std::string& perf_args) {
  ReportPair r;
  r.ours = sh(sonde_bin() + " report -i " + data + " " + sonde_args);
  r.perf = sh("perf report --stdio -i " + data + " " + perf_args + " 2>/dev/null");
  r.difference = first_difference(without_notes(r.ours.out), without_bpf_programs(without_stray_inlined(without_tip(r.perf.out))));
  return r;
}

}  // namespace sonde::test
