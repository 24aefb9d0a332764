// The `-- CMD ARGS` workload: forked early and parked on a pipe, so the
// counters can be opened on its pid (with enable_on_exec) and the stream
// header written before it runs; then released to exec.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/fd.h"

namespace sonde::record {

// The executable argv0 would run (PATH search). Throws a runtime error if
// there is none, before anything else happens.
std::string resolve_command(const std::string& argv0);

class Workload {
 public:
  Workload() = default;
  ~Workload();  // kills and reaps a child that was never released or reaped
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // Forks the child. It restores `child_mask` as its signal mask, sends its
  // stdout to stderr when `stdout_is_stream` (so it cannot corrupt `-o -`),
  // and waits for go().
  void start(const std::string& path, const std::vector<std::string>& argv, const sigset_t& child_mask,
             bool stdout_is_stream);
  // Lets the child exec. Throws a runtime error if exec failed.
  void go();

  pid_t pid() const { return pid_; }
  // A pidfd that polls readable when the child exits (-1 if unsupported).
  int pidfd() const { return pidfd_.get(); }
  bool running() const { return pid_ > 0 && !reaped_; }

  // Reaps the child if it has exited; returns true then and sets status.
  bool try_reap();
  // Waits for the child.
  void reap();
  void kill(int sig);
  // The exit status as a shell reports it (128+signal if killed).
  int exit_status() const { return exit_status_; }
  // The child's resource usage once reaped (user and sys time for stat).
  const struct rusage& usage() const { return usage_; }

 private:
  void record_status(int status);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int exit_status_ = 0;
  struct rusage usage_ {};
  UniqueFd go_fd_;
  UniqueFd err_fd_;
  UniqueFd pidfd_;
};

}  // namespace sonde::record
