// What the recording subcommands (record, trace, sched) share on their
// command lines: -p lists and their own argv for FEAT_CMDLINE.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sonde::cli {

// PID[,PID...]; a usage error naming `opt` for anything else.
std::vector<pid_t> parse_pids(const std::string& opt, const std::string& text);

// The process's own argv (main() does not pass it down).
std::vector<std::string> own_cmdline();

}  // namespace sonde::cli
