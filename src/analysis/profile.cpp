#include "analysis/profile.h"

namespace sonde::analysis {

StringId Profile::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  StringId id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

void Profile::stack_locations(uint32_t leaf, std::vector<uint32_t>& out) const {
  out.clear();
  for (uint32_t n = leaf; n != UINT32_MAX; n = nodes[n].parent) out.push_back(nodes[n].location);
}

}  // namespace sonde::analysis
