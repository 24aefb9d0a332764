// Number-valued options shared by the commands that start counters
// (record, stat, trace): one usage-error line naming the option on bad input.
// (-p/-t lists: record::parse_pid_list.)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::cli {

// Any u64; the options' own ranges are checked by the callers.
uint64_t parse_u64(const std::string& opt, const std::string& text);

// --call-graph fp | dwarf[,SIZE] | cfi | lbr (perf's syntax; record and
// trace): 0 for fp, cfi and lbr, else the bytes of user stack to copy with
// each sample (default 8192, as perf).
uint32_t parse_call_graph(const std::string& text);

}  // namespace sonde::cli
