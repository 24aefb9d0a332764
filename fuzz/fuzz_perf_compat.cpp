// The parsers issue 28 added for perf's command line: HEADER_CPU_TOPOLOGY's
// payload as report -I prints it (from a recording: untrusted), and
// /proc/kallsyms text as `sonde kallsyms` searches it.
#include <cstring>
#include <span>
#include <string_view>

#include "format/topology_text.h"
#include "kernel/kallsyms_lookup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t cpus = 0;
  std::memcpy(&cpus, data, 4);
  (void)sonde::format::cpu_topology_text(std::span<const uint8_t>(data + 4, size - 4), cpus % 4096);
  std::string_view text(reinterpret_cast<const char*>(data + 4), size - 4);
  for (std::string_view name : {"schedule", "a", ""})
    if (auto e = sonde::kernel::find_kallsyms_symbol(text, name)) (void)sonde::kernel::format_kallsyms_entry(name, *e);
  return 0;
}
