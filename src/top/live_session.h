// The live half of `sonde top`: the recorder writes its stream into a pipe
// on one thread, and the reading pipeline (RecordingWalker, ProfileBuilder)
// reads it on another as it arrives, exactly as `sonde record -o - | sonde
// report -i -` would, in one process. The caller takes the samples of each
// interval (with every table so far) whenever it refreshes.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "analysis/profile.h"
#include "analysis/profile_builder.h"
#include "record/recorder.h"
#include "symbol/symbolizer.h"
#include "util/fd.h"

namespace sonde::top {

// What one refresh shows.
struct Interval {
  analysis::Profile profile;  // every table so far; the samples since the last take
  uint64_t samples = 0;       // samples in this interval
  uint64_t lost = 0;          // samples the kernel dropped, since the start
  bool ended = false;         // the recording is over (its targets exited, or it failed)
};

class LiveSession {
 public:
  // Starts the recorder (its output_fd and stop_fd are set here) and the
  // reader. Returns once the stream has begun; throws what the recorder
  // threw before that (bad options, no such process, no hardware PMU, ...).
  LiveSession(record::RecordOptions record, const SymbolizerOptions& symbols,
              const analysis::ProfileOptions& profile);
  ~LiveSession();  // stop(), errors swallowed
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  // Moves the samples since the last call into `out` (see Interval).
  void take_interval(Interval& out);
  // Readable once the recording has ended by itself (for poll()).
  int ended_fd() const { return ended_event_.get(); }
  // Ends the recording (sampling stops, the events are closed) and waits
  // for both threads. Rethrows a failure of the recorder or the reader.
  void stop();

 private:
  void record_thread();
  void read_thread(UniqueFd pipe_read);
  void mark_ended();
  void join();

  record::RecordOptions record_;
  Symbolizer symbolizer_;
  analysis::ProfileBuilder builder_;  // guarded by mu_
  std::string cache_root_;
  UniqueFd pipe_write_;   // the recorder thread's; closed when it returns
  UniqueFd stop_event_;   // written by stop(): the recorder's stop_fd
  UniqueFd ended_event_;  // written when the reader reaches the end

  std::mutex mu_;
  std::condition_variable began_cv_;
  bool began_ = false;       // guarded by mu_: the reader has seen the stream's first record
  bool ended_ = false;       // guarded by mu_
  uint64_t samples_ = 0;     // guarded by mu_: this interval's
  uint64_t lost_ = 0;        // guarded by mu_
  std::exception_ptr record_failure_, read_failure_;  // each written by its thread before it ends
  std::thread recorder_, reader_;
};

}  // namespace sonde::top
