// "Did you mean": the few names closest to a misspelt one (edit distance),
// for the probe finder's messages.
#pragma once

#include <string>
#include <vector>

namespace sonde::probe {

// Up to `limit` names of `names` nearest to `wanted`, joined by ", ".
std::string nearest_names(const std::string& wanted, const std::vector<std::string>& names, size_t limit = 3);

}  // namespace sonde::probe
