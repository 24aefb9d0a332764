#include "util/cpu_set.h"

#include <algorithm>

#include "util/parse_int.h"

namespace sonde {

namespace {

constexpr int kMaxCpu = 4095;

bool parse_one_cpu(std::string_view s, int& out) {
  auto cpu = parse_int<int>(s, 0, kMaxCpu);
  out = cpu.value;
  return static_cast<bool>(cpu);
}

}  // namespace

bool parse_cpu_set(std::string_view text, std::vector<int>& out) {
  if (text.empty()) return false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    size_t dash = item.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!parse_one_cpu(item, lo)) return false;
      hi = lo;
    } else if (!parse_one_cpu(item.substr(0, dash), lo) || !parse_one_cpu(item.substr(dash + 1), hi) || hi < lo) {
      return false;
    }
    for (int c = lo; c <= hi; ++c) out.push_back(c);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return true;
}

}  // namespace sonde
