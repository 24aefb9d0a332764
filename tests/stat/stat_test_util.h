// Helpers of the stat tests: the work fixture, CSV parsing, and perf-style
// masking of the numbers that differ between two runs.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sonde::test {

// Compiles tests/fixtures/stat_work.c once per process; "" on failure.
std::string stat_work_bin();
// event name -> count from perf stat -x, output lines (no interval prefix).
std::map<std::string, double> csv_counts(const std::string& csv);
// The text with every number (and the spaces before it) as " N", rate
// units made "/sec", noise columns dropped and trailing spaces cut: what
// stays is perf's layout.
std::string mask_numbers(const std::string& text);

}  // namespace sonde::test
