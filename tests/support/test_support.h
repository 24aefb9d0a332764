// Shared helpers for sonde's tests: run programs and capture their output,
// scratch folders that clean up, fixtures compiled at test time with gcc.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace sonde::test {

struct RunResult {
  int exit_code = -1;  // the exit status, or 128+signal
  std::string out;
  std::string err;
};

// Runs argv (no shell), optionally feeding `input` on stdin.
RunResult run(const std::vector<std::string>& argv, const std::string& input = "");
// Runs a shell command line with /bin/sh -c.
RunResult sh(const std::string& command);

std::string sonde_bin();
std::string demo_bin();
// 'text', for a shell command line. Built by appending: gcc 12 at -O3 warns
// falsely (-Wrestrict) on "'" + std::string temporaries.
inline std::string quoted(const std::string& text) {
  std::string q = "'";
  q += text;
  q += '\'';
  return q;
}
std::string fixtures_dir();

// A fresh folder under the build tree, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Compiles tests/fixtures/<source> with gcc into `out` (extra flags appended).
// Fails the current test (via ADD_FAILURE) and returns false on error.
bool compile_fixture(const std::string& source, const std::string& out, const std::string& flags = "");

// Splits text into lines.
std::vector<std::string> lines(const std::string& text);
// "" when the texts are equal line for line, else what differs: the line
// counts and the first differing line of each (for a test's message).
std::string first_difference(const std::string& ours, const std::string& theirs);

// perf's --header text without the lines of the BPF programs loaded on the
// machine while it recorded (HEADER_BPF_PROG_INFO and HEADER_BPF_BTF:
// "# bpf_prog_info ...", "# \tsub_prog ...", "# btf info of id ..."),
// which sonde does not print (docs/report.md). Any test that loads a BPF
// program (sdt, off-CPU) running beside a perf recording puts them there.
std::string without_bpf_programs(const std::string& perf_header_text);
// Number of lines containing `needle`.
size_t count_lines_with(const std::string& text, const std::string& needle);

// An environment variable saved when made and restored (or removed) when
// the scope ends; with a value, set to it meanwhile.
class SavedEnv {
 public:
  explicit SavedEnv(const char* name);
  SavedEnv(const char* name, const std::string& value);
  ~SavedEnv();
  SavedEnv(const SavedEnv&) = delete;
  SavedEnv& operator=(const SavedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// Waits for an event a test can see (a file's contents, a process's state,
// records in a recording): polls `happened` until it returns true, and
// returns false if it has not after `limit`. The limit only ends a hung
// test and is never a measurement: tests wait on what they need to have
// happened, never on a sleep, and assert no duration. The suite's one
// polling loop.
bool wait_until(const std::function<bool()>& happened,
                std::chrono::milliseconds limit = std::chrono::seconds(60));

}  // namespace sonde::test
