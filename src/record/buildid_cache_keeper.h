// Keeps the binaries a recording maps in the build-id cache, so a report
// still finds their symbols after they are rebuilt or deleted.
//
// A RecordExtension that opens no events: it hears about every executable
// mapping the recorder writes (with its build-id) and hands it to one
// background thread, off the sampling path. Each distinct build-id is added
// once: a hard link when the cache is on the same file system (free), else a
// reflink or copy. For system-wide recordings (-a/-C) only hard links are
// made: copying every library of every process on the machine would cost
// more than the recording. Objects bigger than kMaxCopyBytes are never copied.
//
// The running kernel's kallsyms is kept too ([kernel.kallsyms]/ID/kallsyms,
// as perf record does), when the recording samples the kernel and the cache
// has no copy for its build-id: reading /proc/kallsyms costs 40-50 ms of
// kernel time (120K symbols formatted on every read), which the first report
// would otherwise pay. It is read first, in chunks; a recording that ends
// before it is read whole abandons it (nothing written), so a short
// recording's teardown never waits for it.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

#include "record/record_extension.h"

namespace sonde::record {

class BuildIdCacheKeeper : public RecordExtension {
 public:
  static constexpr uint64_t kMaxCopyBytes = 512ull << 20;

  explicit BuildIdCacheKeeper(std::string cache_root);
  ~BuildIdCacheKeeper() override;

  void prepare(const RecordTarget& target, const perf_event_attr& base) override;
  void on_exec_mapping(pid_t pid, const std::string& path, const BuildId& id) override;
  // Finishes the queued additions, then stops the thread.
  void stop() override;

  // What happened, for the summary and tests.
  size_t added() const { return added_; }
  size_t skipped() const { return skipped_; }
  bool kept_kallsyms() const { return kept_kallsyms_; }

  // Where kallsyms and the kernel's build-id are read (tests point them
  // elsewhere).
  std::string kallsyms_path = "/proc/kallsyms";
  std::string kernel_notes_path = "/sys/kernel/notes";

 private:
  struct Item {
    pid_t pid;
    std::string path;
    BuildId id;
  };
  void run();
  void keep(const Item& item);
  void scan_proc_maps(pid_t pid);
  void keep_kallsyms();
  void keep_vdso(const BuildId& id);
  bool stopping();

  std::string root_;
  bool hard_links_only_ = false;
  dev_t cache_dev_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::unordered_set<BuildId, BuildIdHash> seen_;  // guarded by mu_
  std::vector<pid_t> initial_pids_;
  bool stopping_ = false;
  bool want_kallsyms_ = false;  // the recording samples the kernel
  std::thread worker_;
  size_t added_ = 0, skipped_ = 0;
  bool kept_kallsyms_ = false;
};

}  // namespace sonde::record
