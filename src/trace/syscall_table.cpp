#include "trace/syscall_table.h"

#include <fnmatch.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "util/error.h"
#include "util/text_join.h"

namespace sonde::trace {

namespace {

struct NumberedName {
  uint32_t nr;
  const char* name;
};

constexpr NumberedName kSyscalls[] = {
#include "trace/syscall_numbers.inc"
};

const std::vector<std::string_view>& names_by_number() {
  static const std::vector<std::string_view> table = [] {
    std::vector<std::string_view> t;
    for (const auto& s : kSyscalls) {
      if (s.nr >= t.size()) t.resize(s.nr + 1);
      t[s.nr] = s.name;
    }
    return t;
  }();
  return table;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string_view> split_commas(std::string_view list) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t c = list.find(',', pos);
    if (c == std::string_view::npos) c = list.size();
    out.push_back(list.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

}  // namespace

std::string_view syscall_name(uint64_t nr) {
  const auto& t = names_by_number();
  return nr < t.size() ? t[nr] : std::string_view{};
}

std::optional<uint32_t> syscall_number(std::string_view name) {
  for (const auto& s : kSyscalls)
    if (name == s.name) return s.nr;
  return std::nullopt;
}

std::vector<std::string> nearest_syscall_names(std::string_view name, size_t n) {
  std::vector<std::pair<size_t, std::string_view>> scored;
  for (const auto& s : kSyscalls) {
    std::string_view cand = s.name;
    size_t d = edit_distance(name, cand);
    // A name that contains the input (or the reverse) is as near as a typo.
    if (cand.find(name) != std::string_view::npos || name.find(cand) != std::string_view::npos) d = std::min<size_t>(d, 1);
    scored.emplace_back(d, cand);
  }
  std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < n; ++i) out.emplace_back(scored[i].second);
  return out;
}

std::vector<uint32_t> select_syscalls(std::string_view list) {
  bool negate = !list.empty() && list.front() == '!';
  if (negate) list.remove_prefix(1);
  std::vector<bool> chosen(names_by_number().size(), false);
  for (std::string_view item : split_commas(list)) {
    if (item.empty()) throw_usage("invalid -e '{}': an empty syscall name", list);
    std::string pattern(item);
    bool any = false;
    for (const auto& s : kSyscalls) {
      if (::fnmatch(pattern.c_str(), s.name, 0) == 0) {
        chosen[s.nr] = true;
        any = true;
      }
    }
    if (!any) {
      auto near = nearest_syscall_names(item, 3);
      std::string hint;
      for (const auto& n : near) append_separated(hint, ", ", n);
      throw_usage("unknown syscall '{}' (nearest: {})", item, hint);
    }
  }
  std::vector<uint32_t> out;
  for (uint32_t nr = 0; nr < chosen.size(); ++nr)
    if (chosen[nr] != negate && !syscall_name(nr).empty()) out.push_back(nr);
  return out;
}

}  // namespace sonde::trace
