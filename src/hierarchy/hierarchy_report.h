// perf report --hierarchy (perf 6.1's --stdio layout): per event, the Self
// overhead of each command, under it each object, under that each symbol,
// every level sorted by overhead:
//    100.00%        uname
//        66.67%        [kernel.kallsyms]
//           33.33%        [k] do_syscall_64
#pragma once

#include <string>

#include "analysis/profile.h"

namespace sonde::hierarchy {

std::string format_hierarchy(const analysis::Profile& p);

}  // namespace sonde::hierarchy
