// Keeps a recording's JIT files: the jitdumps its processes announce (an
// executable mmap of jit-PID.dump) and the perf maps of processes with
// anonymous executable memory (/tmp/perf-PID.map), copied into the
// recording's JIT directory (OUTPUT.jit/, jit/jit_files.h; docs/format.md).
// A report made after the process exited and /tmp was cleaned still names
// the JIT frames, from the copies.
//
// A RecordExtension that opens no events. The files grow while the JIT
// runs: a background thread appends what is new every kPollMs, and stop()
// copies the rest; each copy is bounded (kMaxCopyBytes), and what did not fit
// is said in the summary line.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record/record_extension.h"

namespace sonde::record {

class JitFileKeeper : public RecordExtension {
 public:
  static constexpr uint64_t kMaxCopyBytes = 256ull << 20;
  static constexpr int kPollMs = 200;

  // `dir`: where the copies go (made on the first file found).
  explicit JitFileKeeper(std::string dir);
  ~JitFileKeeper() override;

  void prepare(const RecordTarget& target, const perf_event_attr& base) override;
  void on_exec_mapping(pid_t pid, const std::string& path, const BuildId& id) override;
  void stop() override;

  // Files copied (whole or up to the bound), and one line about those that
  // were cut short or could not be copied ("" when none).
  size_t copied() const;
  std::string note() const;
  // Where perf maps are looked for (tests point it elsewhere).
  std::string perf_map_dir = "/tmp";

 private:
  struct Source {
    std::string copy;     // its path in dir_
    uint64_t copied = 0;  // bytes appended to the copy so far
    bool truncated = false, failed = false;
  };
  void run();
  void copy_new_bytes();
  void append(const std::string& from, Source& s);

  std::string dir_;
  bool dir_made_ = false;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, Source> sources_;  // by the source file's path
  std::thread thread_;
};

}  // namespace sonde::record
