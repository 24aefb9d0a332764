// Reading perf annotate --stdio's text (sonde's and perf's): each
// instruction line's percentage by its address, per annotated object.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace sonde::test {

struct Annotation {
  std::string header;                        // " Percent |\tSource code & Disassembly of ..."
  std::map<std::string, std::string> percent;  // address (hex) -> "26.99"
};

// Every annotation in `text`, in order.
inline std::vector<Annotation> parse_annotations(const std::string& text) {
  static const std::regex insn(R"(^ +([0-9]+(?:\.[0-9]+)?) : +([0-9a-f]+):)");
  std::vector<Annotation> out;
  for (const auto& l : lines(text)) {
    if (l.starts_with(" Percent |") || l.starts_with(" Samples |")) {
      out.push_back({l, {}});
      continue;
    }
    std::smatch m;
    if (!out.empty() && std::regex_search(l, m, insn)) out.back().percent[m[2]] = m[1];
  }
  return out;
}

// The percentages of the first annotation in `text`, in instruction order
// (for code whose addresses differ: perf's jitted-PID-N.so and the
// jitdump's runtime addresses).
inline std::vector<std::string> percent_sequence(const std::string& text) {
  static const std::regex insn(R"(^ +([0-9]+(?:\.[0-9]+)?) : +[0-9a-f]+:)");
  std::vector<std::string> out;
  bool in_first = false;
  for (const auto& l : lines(text)) {
    if (l.starts_with(" Percent |") || l.starts_with(" Samples |")) {
      if (in_first) break;
      in_first = true;
      continue;
    }
    std::smatch m;
    if (in_first && std::regex_search(l, m, insn)) out.push_back(m[1]);
  }
  return out;
}

// Every annotation perf prints, sonde prints too: same header, same
// percentage at every address.
inline void expect_same_percentages(const std::string& perf_text, const std::string& sonde_text,
                                    const std::string& what) {
  auto theirs = parse_annotations(perf_text);
  auto ours = parse_annotations(sonde_text);
  ASSERT_FALSE(theirs.empty()) << what << "\n" << perf_text;
  size_t compared = 0;
  for (const auto& t : theirs) {
    auto it = std::find_if(ours.begin(), ours.end(), [&](const Annotation& o) { return o.header == t.header; });
    ASSERT_NE(it, ours.end()) << what << ": sonde has no annotation with perf's header\n"
                              << t.header << "\nsonde:\n" << sonde_text;
    for (const auto& [addr, pct] : t.percent) {
      auto p = it->percent.find(addr);
      ASSERT_NE(p, it->percent.end()) << what << ": no instruction at " << addr << " under " << t.header;
      EXPECT_EQ(p->second, pct) << what << ": " << t.header << " at " << addr;
    }
    EXPECT_EQ(it->percent.size(), t.percent.size()) << what << ": " << t.header;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

}  // namespace sonde::test
