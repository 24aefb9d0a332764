#include "probe/nearest_names.h"

#include <algorithm>
#include <set>

namespace sonde::probe {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_names(const std::string& wanted, const std::vector<std::string>& names, size_t limit) {
  std::set<std::pair<size_t, std::string>> ranked;
  for (const auto& n : names)
    if (!n.empty()) ranked.insert({edit_distance(wanted, n), n});
  std::string out;
  size_t count = 0;
  for (const auto& [d, n] : ranked) {
    if (count++ == limit) break;
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace sonde::probe
