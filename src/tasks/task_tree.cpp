#include "tasks/task_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "format/perf_abi.h"
#include "format/records.h"

namespace sonde::tasks {

std::vector<Task> read_tasks(format::RecordReader& reader) {
  std::map<int32_t, Task> by_tid;  // ordered: roots and children come out by tid
  by_tid[0] = Task{0, 0, -1, "swapper"};
  format::RecordView rec;
  while (reader.next(rec)) {
    if (rec.header.type == format::kComm) {
      auto c = format::CommView::parse(rec.bytes);
      if (!c) continue;
      Task& t = by_tid[int32_t(c->tid)];
      t.pid = int32_t(c->pid), t.tid = int32_t(c->tid), t.comm = std::string(c->comm);
    } else if (rec.header.type == format::kFork) {
      auto f = format::ForkExitView::parse(rec.bytes);
      if (!f || f->tid == f->ptid) continue;
      Task& t = by_tid[int32_t(f->tid)];
      // A new task has its parent's comm until it sets its own (perf's thread__fork).
      if (t.comm.empty() && by_tid.count(int32_t(f->ptid))) t.comm = by_tid[int32_t(f->ptid)].comm;
      t.pid = int32_t(f->pid), t.tid = int32_t(f->tid), t.ppid = int32_t(f->ptid);
    }
  }
  std::vector<Task> out;
  for (auto& [tid, t] : by_tid) out.push_back(std::move(t));
  return out;
}

std::string format_task_tree(const std::vector<Task>& tasks) {
  std::multimap<int32_t, const Task*> children;  // by parent tid
  std::vector<const Task*> roots;
  for (const auto& t : tasks) {
    bool has_parent = t.ppid >= 0 && std::any_of(tasks.begin(), tasks.end(), [&](const Task& p) { return p.tid == t.ppid; });
    if (has_parent) children.emplace(t.ppid, &t);
    else roots.push_back(&t);
  }
  std::string out = fmt::format("#{:>9} {:>8} {:>8}  {}\n", "pid", "tid", "ppid", "comm");
  // Depth-first; `depth` is bounded by the tasks (a FORK cycle cannot recur:
  // each task is printed once).
  std::vector<bool> printed(tasks.size());
  std::function<void(const Task*, int)> print = [&](const Task* t, int depth) {
    size_t index = static_cast<size_t>(t - tasks.data());
    if (printed[index]) return;
    printed[index] = true;
    out += fmt::format("{:>10} {:>8} {:>8} |{:{}}{}\n", t->pid, t->tid, t->ppid, "", depth, t->comm);
    auto [lo, hi] = children.equal_range(t->tid);
    for (auto it = lo; it != hi; ++it) print(it->second, depth + 1);
  };
  for (const Task* r : roots) print(r, 0);
  return out;
}

}  // namespace sonde::tasks
