// The recorded processes alive now, kept from the records the recorder
// drains: a FORK of a new process adds it, its EXIT removes it. A rotated
// file starts with these processes' COMM and MMAP2 read from /proc, so it
// describes the samples that follow without the files before it.
#pragma once

#include <sys/types.h>

#include <set>

namespace sonde::record {

class LiveProcesses {
 public:
  void add(pid_t pid) { pids_.insert(pid); }
  // FORK (pid != ppid: a new process; a new thread is not one) and EXIT
  // (pid == tid: the process, not one of its threads).
  void on_fork(pid_t pid, pid_t ppid) {
    if (pid != ppid) pids_.insert(pid);
  }
  void on_exit(pid_t pid, pid_t tid) {
    if (pid == tid) pids_.erase(pid);
  }
  // Ascending: parents (lower pids, usually) come first.
  const std::set<pid_t>& pids() const { return pids_; }

 private:
  std::set<pid_t> pids_;  // one node per process started while recording, not per sample
};

}  // namespace sonde::record
