// `sonde record --threads[=SPEC]`: which CPUs' ring buffers each drain
// thread owns, in perf's spellings (perf record --threads):
//   cpu | core | package | numa   one thread per CPU, core, package, NUMA node
//   N                             N threads, the CPUs dealt in contiguous runs
//   CPUS[/AFFINITY]:CPUS[/AFFINITY]:...   one thread per CPU list ("0,2-3")
// with an optional affinity list per thread, as perf's masks. Groups are
// filtered through the recorded CPUs (-C). Unlike perf, a CPU that is not
// online is an error, not ignored: a mistyped mask would silently change
// the layout.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sonde::record {

struct DrainThreadSpec {
  std::vector<int> cpus;      // recorded CPUs whose rings the thread drains
  std::vector<int> affinity;  // CPUs it runs on (empty: anywhere)
};

// `recorded`: the CPUs events are opened on (sorted). `sysfs` roots the
// topology files (tests). Throws a usage error (one line) on a bad SPEC:
// unknown word, malformed or empty mask, offline CPU, overlapping masks, a
// group without any recorded CPU, 0 threads.
std::vector<DrainThreadSpec> parse_thread_spec(std::string_view spec, const std::vector<int>& recorded,
                                               const std::string& sysfs = "/sys/devices/system");

}  // namespace sonde::record
