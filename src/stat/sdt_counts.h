// SDT probes counted for `sonde stat -e '%provider:event'`, through the same
// machinery `sonde record` uses (probe::SdtExtension: the probe cache, one
// BPF uprobe_multi link per file, the fork follower): every hit is a
// bpf-output sample, drained from the per-CPU rings and counted per probe.
// perf cannot count SDT events in one step. The links are fd-bound: nothing
// stays registered after stat ends, even killed.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "stat/count_table.h"

namespace sonde::probe {
class SdtExtension;
}
namespace sonde::record {
class RingBuffer;
}

namespace sonde::stat {

class SdtCounts {
 public:
  // `specs`: the "%provider:event" -e items (globs allowed).
  explicit SdtCounts(std::vector<std::string> specs);
  ~SdtCounts();
  bool empty() const { return specs_.empty(); }

  // Attaches to the target (a workload parked before exec, processes, or
  // CPUs) and returns the probes the specs matched, one event each, named
  // as `sonde record` names them ("%provider:event").
  std::vector<std::string> attach(pid_t workload, const std::string& command_path, const std::vector<int>& pids,
                                  const std::vector<int>& cpus);
  // Counts the hits waiting in the rings.
  void drain();
  // Hits of probe `i` (attach()'s order) so far; lost hits, if any.
  uint64_t hits(size_t i) const { return i < hits_.size() ? hits_[i] : 0; }
  uint64_t lost() const { return lost_; }
  void detach();

 private:
  std::vector<std::string> specs_;
  std::unique_ptr<probe::SdtExtension> ext_;
  std::vector<std::unique_ptr<record::RingBuffer>> rings_;
  std::vector<uint64_t> hits_;
  uint64_t lost_ = 0;
};

// Moves SDT specs out of `events` into `sdt`, replaced by one event per
// probe matched (unit "", counted with ena = run = the time counted).
void expand_sdt_events(std::vector<CounterEvent>& events, const std::vector<std::string>& probe_names);

}  // namespace sonde::stat
