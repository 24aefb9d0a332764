#include "sched/sched_record.h"

#include <unistd.h>

#include "record/tracing_data.h"
#include "util/error.h"

namespace sonde::sched {

namespace {

bool tracepoint_exists(const std::string& root, const std::string& name) {
  return ::access((root + "/events/sched/" + name + "/format").c_str(), R_OK) == 0;
}

}  // namespace

std::vector<std::string> sched_record_events() {
  const std::string root = record::tracefs_root();
  std::vector<std::string> out;
  for (const char* n : {"sched_switch", "sched_stat_runtime", "sched_process_fork", "sched_wakeup_new",
                        "sched_migrate_task"})
    out.push_back(std::string("sched:") + n);
  out.push_back(tracepoint_exists(root, "sched_waking") ? "sched:sched_waking" : "sched:sched_wakeup");
  for (const char* n : {"sched_stat_wait", "sched_stat_sleep", "sched_stat_iowait"})
    if (tracepoint_exists(root, n)) out.push_back(std::string("sched:") + n);
  return out;
}

record::RecordOptions sched_record_options(std::string output, std::vector<std::string> command,
                                           std::vector<std::string> cmdline) {
  record::RecordOptions r;
  r.events = sched_record_events();
  r.system_wide = true;
  r.period = 1;
  r.mmap_pages = 1024;
  r.output = std::move(output);
  r.command = std::move(command);
  r.cmdline = std::move(cmdline);
  return r;
}

}  // namespace sonde::sched
