#include "stat/counters.h"

#include <dirent.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "kernel/perf_event.h"
#include "util/error.h"

namespace sonde::stat {

namespace {

std::string read_comm(int tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

std::vector<int> numeric_entries(const std::string& dir) {
  std::vector<int> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.push_back(std::atoi(e->d_name));
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Errors that mean "this kernel/machine cannot count this event": perf
// shows such counters as <not supported> instead of failing.
bool is_unsupported_errno(int err) {
  return err == ENOENT || err == EOPNOTSUPP || err == EINVAL || err == ENODEV || err == ENXIO || err == E2BIG;
}

}  // namespace

std::vector<ThreadEntry> threads_of(const std::vector<int>& pids, const std::vector<int>& tids) {
  std::vector<ThreadEntry> out;
  for (int pid : pids) {
    auto tasks = numeric_entries("/proc/" + std::to_string(pid) + "/task");
    if (tasks.empty()) throw_runtime("no such process: {}", pid);
    for (int tid : tasks) out.push_back({tid, read_comm(tid)});
  }
  for (int tid : tids) {
    if (::access(("/proc/" + std::to_string(tid)).c_str(), F_OK) != 0) throw_runtime("no such thread: {}", tid);
    out.push_back({tid, read_comm(tid)});
  }
  return out;
}

std::vector<ThreadEntry> all_threads() {
  std::vector<int> pids = numeric_entries("/proc");
  std::vector<ThreadEntry> out;
  for (int pid : pids)
    for (int tid : numeric_entries("/proc/" + std::to_string(pid) + "/task")) out.push_back({tid, read_comm(tid)});
  return out;
}

namespace {

// --filter: the kernel tests each hit before it is counted.
void set_filter(int fd, const CounterEvent& ev) {
  if (ev.filter.empty()) return;
  if (::ioctl(fd, kPerfEventIocSetFilter, ev.filter.c_str()) != 0)
    throw_usage("cannot set filter '{}' on event '{}': {}", ev.filter, ev.name, errno_text(errno));
}

}  // namespace

void Counters::open(CountTable& table, const StatTarget& target) {
  if (!target.cpus.empty()) {
    table.cpus = target.cpus;
    table.threads = {ThreadEntry{}};
  } else {
    table.cpus = {-1};
    table.threads = target.threads;
  }
  ncpus_ = table.cpus.size();
  nthreads_ = table.threads.size();
  fds_.clear();
  fds_.resize(table.events.size() * ncpus_ * nthreads_);
  for (size_t e = 0; e < table.events.size(); ++e) {
    auto& ev = table.events[e];
    if (!ev.sdt_spec.empty()) continue;
    for (size_t c = 0; c < ncpus_ && ev.supported; ++c) {
      for (size_t t = 0; t < nthreads_ && ev.supported; ++t) {
        int group_fd = -1;
        if (ev.group_leader >= 0 && static_cast<size_t>(ev.group_leader) != e)
          group_fd = fd(ev.group_leader, c, t);
        perf_event_attr attr = ev.attr;
        int f = kernel::perf_event_open_sized(attr, table.threads[t].pid, table.cpus[c], group_fd,
                                              kPerfFlagFdCloexec);
        if (f >= 0) {
          fds_[(e * ncpus_ + c) * nthreads_ + t].reset(f);
          set_filter(f, ev);
          continue;
        }
        int err = errno;
        if (err == ESRCH) continue;  // the thread exited since it was listed
        if (!is_unsupported_errno(err))
          throw_runtime("cannot count '{}': {}", ev.name, errno_text(err));
        ev.supported = false;
        for (size_t i = 0; i < ncpus_ * nthreads_; ++i) fds_[e * ncpus_ * nthreads_ + i].reset();
      }
    }
  }
  ids_.clear();  // asked of the kernel when first needed (stat record): plain stat never does
  table.reset_values();
}

int Counters::fd(size_t event, size_t cpu_idx, size_t thread_idx) const {
  return fds_[(event * ncpus_ + cpu_idx) * nthreads_ + thread_idx].get();
}

void Counters::enable() {
  for (auto& f : fds_)
    if (f) ::ioctl(f.get(), kPerfEventIocEnable, 0);
}

void Counters::disable() {
  for (auto& f : fds_)
    if (f) ::ioctl(f.get(), kPerfEventIocDisable, 0);
}

void Counters::read(CountTable& table) const {
  for (size_t e = 0; e < table.events.size(); ++e)
    for (size_t c = 0; c < ncpus_; ++c)
      for (size_t t = 0; t < nthreads_; ++t) {
        int f = fd(e, c, t);
        if (f < 0) continue;
        uint64_t buf[3] = {};
        if (::read(f, buf, sizeof buf) == static_cast<ssize_t>(sizeof buf)) table.at(e, c, t) = {buf[0], buf[1], buf[2]};
      }
}

const std::vector<uint64_t>& Counters::all_ids() const {
  if (ids_.size() != fds_.size()) {
    ids_.assign(fds_.size(), 0);
    for (size_t i = 0; i < fds_.size(); ++i)
      if (fds_[i]) ids_[i] = kernel::event_id(fds_[i].get());
  }
  return ids_;
}

std::vector<uint64_t> Counters::ids(size_t event) const {
  all_ids();
  std::vector<uint64_t> out;
  for (size_t i = 0; i < ncpus_ * nthreads_; ++i)
    if (uint64_t id = ids_[event * ncpus_ * nthreads_ + i]) out.push_back(id);
  return out;
}

}  // namespace sonde::stat
