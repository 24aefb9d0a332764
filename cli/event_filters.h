// perf's --filter on the command line: each one belongs to the -e before it.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sonde::cli {

// Adds `--filter` (repeatable) to `cmd`, kept in `filters`.
void add_filter_option(CLI::App* cmd, std::vector<std::string>& filters);

// One filter per -e value of `cmd`, in the order given (empty where no
// --filter followed it). Two filters after one -e are both applied, as
// perf's (A) && (B). A --filter before any -e is a usage error.
std::vector<std::string> filters_per_event(const CLI::App& cmd, const std::vector<std::string>& filters);

}  // namespace sonde::cli
