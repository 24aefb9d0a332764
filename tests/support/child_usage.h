// Runs a program the way a hostile-input test needs: its exit status or the
// signal that ended it, its output, and the resources it used (peak RSS from
// wait4), under a CPU-time limit so a runaway child ends instead of hanging
// the suite. Standard input is /dev/null, a file, or a pipe holding `bytes`.
#pragma once

#include <string>
#include <vector>

namespace sonde::test {

struct ChildUsage {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;
  std::string out, err;
  long max_rss_kib = 0;
};

struct ChildInput {
  enum Kind { kNone, kFile, kPipe } kind = kNone;
  std::string path;  // kFile: the file; kPipe: its bytes are written into the pipe (up to 1 MiB)
};

ChildUsage run_measured(const std::vector<std::string>& argv, const ChildInput& in = {}, int cpu_seconds = 60);

// "" when the run ended as every sonde command must, whatever its input:
// status 0, or status 1 with exactly one `sonde: ` error line, the last one
// (lines of warnings aside); else what was wrong, with its stderr.
std::string unclean_outcome(const ChildUsage& r);

// The peak RSS a sonde command may reach on a small input: a few tens of MB
// (more under AddressSanitizer, whose shadow memory counts as resident).
long small_input_rss_limit_kib();

}  // namespace sonde::test
