// The running binary's own function symbols, which `perf test -vv Symbols`
// prints and perf's shell tests grep ("does perf have symbol test_loop?").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::workload {

struct SelfSymbol {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string name;
};

// The symbols of /proc/self/exe's .symtab (or .dynsym), sorted by address.
// Throws sonde::Error when the binary cannot be read.
std::vector<SelfSymbol> self_symbols();

}  // namespace sonde::workload
