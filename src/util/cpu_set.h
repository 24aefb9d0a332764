// perf's CPU list syntax ("0", "0-3", "0,2-3"): the numbers alone, without
// asking which CPUs this machine has (record checks that; report and script
// read recordings made elsewhere).
#pragma once

#include <string_view>
#include <vector>

namespace sonde {

// Sorted, each CPU once; false on anything malformed (out left partial).
bool parse_cpu_set(std::string_view text, std::vector<int>& out);

}  // namespace sonde
