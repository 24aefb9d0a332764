// Shared by the off-CPU tests: the fixture, recordings read back through
// `sonde script`, and the kernel's view of BPF objects (to prove nothing
// stays attached).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sonde::test {

// One sample as `sonde script -F comm,pid,tid,period,event,ip,sym` (or
// perf script with the same fields) prints it.
struct ScriptSample {
  std::string comm, event;
  pid_t pid = 0, tid = 0;
  uint64_t period = 0;
  std::vector<std::string> syms;  // innermost first, kernel then user
  bool has(const std::string& sym) const;
};
std::vector<ScriptSample> parse_script(const std::string& text);

// The fixture's own measurement of its waits ("nap_ns=N ..." on stdout).
std::map<std::string, double> fixture_ms(const std::string& out);

// The ids of the BPF links and programs process `pid` holds (from
// /proc/PID/fdinfo), and whether the kernel still knows one.
struct BpfIds {
  std::vector<uint32_t> links, progs;
};
BpfIds bpf_ids_of(pid_t pid);
bool bpf_link_exists(uint32_t id);
bool bpf_prog_exists(uint32_t id);
// Programs loaded anywhere whose name starts with `prefix` (BPF names
// are cut at 15 characters).
size_t count_loaded_programs(const std::string& prefix);
// Starts `sonde ARGS` in the background and waits (up to 20 s) until
// `ready(ids)` holds for the BPF ids it holds; returns its pid.
pid_t start_sonde_until(const std::vector<std::string>& args, const std::function<bool(const BpfIds&)>& ready, BpfIds& ids);
// Waits up to `seconds` for every id to be gone; true when they are.
bool bpf_ids_gone(const BpfIds& ids, double seconds = 5);

// Reaps child `pid` and returns its waitpid status.
int wait_status(pid_t pid);
// The children of process `pid` (its main thread's), for ending a
// workload that outlives a killed recorder, by pid.
std::vector<pid_t> children_of(pid_t pid);

}  // namespace sonde::test
