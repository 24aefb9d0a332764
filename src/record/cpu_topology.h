// HEADER_CPU_TOPOLOGY as perf writes it (util/header.c write_cpu_topology),
// read from sysfs: the distinct package and core sibling lists, then
// (core id, socket id) for every configured CPU (-1 when offline), then the
// die sibling lists and die ids where the kernel has dies. Readers use it
// for `--sort socket,core` and `--header`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::record {

// `cpus`: the configured CPUs (NRCPUS' "available"). Empty when sysfs has
// no topology for CPU 0 (then the feature is not written).
std::vector<uint8_t> encode_cpu_topology(uint32_t cpus, const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

}  // namespace sonde::record
