// perf report --header-only -I's lines for HEADER_CPU_TOPOLOGY (perf 6.1's
// print_cpu_topology): the sibling lists, then each CPU's core, die and
// socket ids.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace sonde::format {

// `cpus`: HEADER_NRCPUS' available CPUs. nullopt when the payload is cut short.
std::optional<std::string> cpu_topology_text(std::span<const uint8_t> payload, uint32_t cpus);

}  // namespace sonde::format
