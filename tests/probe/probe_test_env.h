// Shared by the `sonde probe` tests: the fixture compiled at test time under
// a name of its own (so its perf group probe_<name> is this test's alone),
// and a guard that deletes every uprobe event of that group when the test
// ends, passed or failed. Tests assert only about their own group: other
// sessions define uprobes beside them.
#pragma once

#include <string>
#include <vector>

#include "support/test_support.h"

namespace sonde::test {

class ProbeFixture {
 public:
  // Compiles tests/fixtures/`source` with `flags` (-O0, -O2, "-g0"...)
  // into dir as pa<pid>x<n> (a group no other test uses).
  ProbeFixture(const TempDir& dir, const std::string& flags, const std::string& source = "probe_args.c");
  ~ProbeFixture();  // deletes the group's events
  ProbeFixture(const ProbeFixture&) = delete;
  ProbeFixture& operator=(const ProbeFixture&) = delete;

  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  const std::string& group() const { return group_; }  // probe_pa<pid>x<n>
  std::string event(const std::string& name) const { return group_ + ":" + name; }
  // This group's lines of uprobe_events, in the kernel's order.
  std::vector<std::string> events() const;
  void delete_events() const;
  // The fixture's source line holding `marker`, 0 if none.
  static int source_line(const std::string& marker);

 private:
  bool ok_ = false;
  std::string path_, group_;
};

// perf 6.1 takes an event name as taken when any group has it (sonde: only
// its own group), so beside other tests perf may add NAME_1: tests run perf
// probe with -f and read its lines through this, which turns "/NAME_N " back
// into "/NAME " ("/NAME__return " on return probes, whose suffixed name
// perf writes without __return).
std::string without_perf_suffixes(std::string text);

// `sonde probe ARGS` / `perf probe ARGS` as shell words (already quoted).
RunResult sonde_probe(const std::string& args);
RunResult perf_probe(const std::string& args);

}  // namespace sonde::test
