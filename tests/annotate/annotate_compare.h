// Reading perf annotate --stdio's text (sonde's and perf's): each
// instruction line's percentage by its address, per annotated object.
#pragma once

#include <map>
#include <regex>
#include <string>

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

}  // namespace sonde::test
