// perf's test workloads (`perf test -w NAME [ARGS]`): small programs whose
// hot functions have fixed names (noploop, test_loop, leaf...), so that a
// shell test can profile one and look for its symbol. sonde ships the same
// ones so that perf's shell tests run against sonde alone.
#pragma once

#include <string>
#include <vector>

namespace sonde::workload {

// The workloads there are, in perf's order.
std::vector<std::string> workload_names();

// Runs workload `name` with its arguments (a duration in seconds for the
// loops, default 1) and returns its exit status. Throws a usage error for
// an unknown name or a malformed argument.
int run_workload(const std::string& name, const std::vector<std::string>& args);

}  // namespace sonde::workload
