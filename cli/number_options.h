// Number-valued options shared by the commands that start counters
// (record, stat): one usage-error line naming the option on bad input.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::cli {

// Any u64; the options' own ranges are checked by the callers.
uint64_t parse_u64(const std::string& opt, const std::string& text);
// -p/-t: PID[,PID...], each a process id.
std::vector<pid_t> parse_pids(const std::string& opt, const std::string& text);

}  // namespace sonde::cli
