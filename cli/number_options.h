// Number-valued options shared by the commands that start counters
// (record, stat): one usage-error line naming the option on bad input.
// (-p/-t lists: record::parse_pid_list.)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::cli {

// Any u64; the options' own ranges are checked by the callers.
uint64_t parse_u64(const std::string& opt, const std::string& text);

}  // namespace sonde::cli
