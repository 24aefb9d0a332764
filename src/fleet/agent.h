// sonde agent: continuous profiling's sender. Beside `sonde record
// --switch-output`, it pushes each rotated file (OUTPUT.<timestamp>, complete
// once renamed) to the store, oldest first; while the store is down the
// files wait and it retries with doubling back-off; a file the store
// rejects (or that cannot be read) is reported and kept as FILE.failed; at
// most max_files wait on disk: beyond that the oldest is removed, counted and
// reported. Pushed files are removed unless `keep`.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleet/push.h"
#include "fleet/store_url.h"
#include "symbol/symbolizer.h"

namespace sonde::fleet {

struct AgentOptions {
  std::string output;  // record's -o: the rotated files are OUTPUT.<digits>
  StoreUrl store;
  PushOptions push;
  size_t max_files = 0;  // 0: no limit
  pid_t record_pid = 0;  // with drain: stop once it has exited and all is sent
  bool drain = false;    // stop when no file waits (and record_pid is gone)
  bool keep = false;     // keep pushed files
  std::chrono::milliseconds poll{1000};
  std::chrono::milliseconds first_backoff{1000}, max_backoff{60000};
  std::chrono::milliseconds timeout{30000};
};

struct AgentTotals {
  uint64_t files = 0, samples = 0, rows = 0, failed = 0, removed_unpushed = 0, retries = 0;
  uint64_t lost_samples = 0;  // lost by the recorder while recording (the pushed files say so)
};

// The rotated files of `output` waiting now, oldest first.
std::vector<std::string> rotated_files(const std::string& output);

// Runs until drained (or `stop` is set). `log` gets one line per event.
AgentTotals run_agent(const AgentOptions& o, const std::function<std::unique_ptr<Symbolizer>(const std::string&)>& symbolizer_for,
                      const std::atomic<bool>& stop, const std::function<void(const std::string&)>& log);

}  // namespace sonde::fleet
