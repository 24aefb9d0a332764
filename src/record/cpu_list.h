// CPU lists as perf spells them ("0-3,6"), and the CPUs that are online.
#pragma once

#include <string_view>
#include <vector>

namespace sonde::record {

// Parses "0", "0-3", "0,2-3". Throws a usage error on anything malformed or
// on a CPU that is not online.
std::vector<int> parse_cpu_list(std::string_view text);

// The online CPUs from /sys/devices/system/cpu/online (0..nprocs-1 fallback).
std::vector<int> online_cpus();

}  // namespace sonde::record
