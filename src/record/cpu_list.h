// CPU lists as perf spells them ("0-3,6"), and the CPUs that are online.
#pragma once

#include <sys/types.h>

#include <string_view>
#include <vector>

namespace sonde::record {

// Parses "0", "0-3", "0,2-3". Throws a usage error on anything malformed or
// on a CPU that is not online.
std::vector<int> parse_cpu_list(std::string_view text);

// Parses -p/-t's "PID[,PID...]" (each 1..2^30-1). Throws a usage error
// naming `opt` on anything else.
std::vector<pid_t> parse_pid_list(std::string_view opt, std::string_view text);

// The online CPUs from /sys/devices/system/cpu/online (0..nprocs-1 fallback).
std::vector<int> online_cpus();

}  // namespace sonde::record
