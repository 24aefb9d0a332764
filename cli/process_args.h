// What the recording subcommands (record, trace, sched) share on their
// command lines: their own argv for FEAT_CMDLINE (-p lists: record::parse_pid_list).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sonde::cli {

// The process's own argv (main() does not pass it down).
std::vector<std::string> own_cmdline();

}  // namespace sonde::cli
