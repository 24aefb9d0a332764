// The recorder's parts (record/recorder.h is the library's call): one
// Recorder per recording, its methods in one file per concept
// (docs/architecture.md, "The recorder"):
//   record_plan.h       options + kernel facts -> a resolved plan (pure)
//   recorder.cpp        the story of a recording: prepare, run, the poll loop, the end
//   event_set.cpp       the kernel's events, their ring buffers, the extensions' rings
//   drains.cpp          rings -> bounded queues -> writer threads; --threads' merge
//   record_handler.cpp  each kernel record on its writer thread (build-ids, losses, extensions)
//   output_files.cpp    the output (file, pipe, directory, --switch-output) and each stream's preamble
//   signal_guard.h      SIGINT/SIGTERM/SIGCHLD/SIGUSR2 through a signalfd
// Internal to src/record.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "format/features.h"
#include "format/record_compressor.h"
#include "format/stream_writer.h"
#include "record/build_id_patcher.h"
#include "record/drain_reader.h"
#include "record/event_spec.h"
#include "record/live_processes.h"
#include "record/record_plan.h"
#include "record/record_queue.h"
#include "record/recorder.h"
#include "record/ring_buffer.h"
#include "record/signal_guard.h"
#include "record/switch_output.h"
#include "record/synth_context.h"
#include "record/thread_spec.h"
#include "record/workload.h"
#include "util/diagnostics.h"
#include "util/fd.h"

namespace sonde::record {

// A pass over the buffers at least this often, so a kill -9 loses little
// even when the buffers never reach their wakeup watermark.
inline constexpr int kPollTimeoutMs = 100;

// Calls stop() on every extension on every way out, including exceptions.
struct ExtensionStopper {
  std::vector<RecordExtension*>& exts;
  ~ExtensionStopper() {
    for (auto& e : exts) {
      try {
        e->stop();
      } catch (...) {
        // stop() must not mask the original error
      }
    }
  }
};

struct OpenEvent {
  EventSpec spec;
  perf_event_attr attr{};
  std::vector<UniqueFd> fds;
  std::vector<uint64_t> ids;
};

struct Ring {
  std::unique_ptr<RingBuffer> buffer;
  RecordExtension* extension = nullptr;  // non-null for an extension's buffer
  int cpu = -1;                          // a kernel ring's CPU
};

// One output stream and what feeds it: the rings one thread drains into
// its queue, and the writer thread that empties the queue into `out`.
// Without --threads there is one, drained by the recorder's own thread.
// With --threads, drains_[0] is DIR/data (synthesized records, extension
// rings and produce()) and drains_[i] is DIR/data.(i-1), drained by a
// thread of its own.
struct Drain {
  std::string path;                      // the file ("" for a pipe or a caller's fd)
  std::vector<size_t> rings;             // indices into Recorder::rings_
  std::vector<int> affinity;             // --threads masks' /AFFINITY
  std::unique_ptr<format::StreamWriter> out;
  std::unique_ptr<RecordQueue> queue;
  std::unique_ptr<DrainReader> reader;
  std::thread drainer;                   // --threads: the thread that fills `queue`
  std::thread writer;
  std::exception_ptr error;              // the writer's or the drainer's, rethrown by run()
  std::vector<uint8_t> scratch = std::vector<uint8_t>(65536);
  bool wrote_in_round = false;
  bool main = false;                     // runs extensions' produce() and --switch-output
  Drain* into = this;                    // whose stream gets the records (--threads -o -: the main one)
  uint64_t samples = 0, lost = 0, dropped_records = 0;
  RecordWrite produce_write;
};

class Recorder {
 public:
  explicit Recorder(const RecordOptions& o) : opts_(o) {
    for (const auto& e : o.extensions) extensions_.push_back(e.get());
  }
  RecordSummary run();

 private:
  // recorder.cpp: the story of a recording, and what is checked before it.
  void prepare();
  void make_extensions();
  void resolve_targets();
  void check_fd_limit();
  void loop();
  void end_workload();
  int stop_fd() const;
  bool take_signals();
  bool targets_alive() const;
  // -v: one line per event opened and for the output.
  template <typename... Args>
  void verbose(fmt::format_string<Args...> f, Args&&... args) const {
    if (opts_.verbose) note(std::string_view(fmt::format(f, std::forward<Args>(args)...)));
  }
  // event_set.cpp: the kernel's events, their ring buffers, the extensions' rings.
  perf_event_attr make_attr(const EventSpec& e, bool tracking) const;
  void open_events();
  void set_tracepoint_filter(int fd, const std::string& event) const;
  void prepare_extensions();
  void enable();
  void stop_sampling();
  // output_files.cpp: the output (file, pipe, directory, rotation) and what each stream starts with.
  void open_output();
  void open_directory();
  void write_preamble(Drain& d);
  void write_metadata(const SynthContext& ctx, Drain& d);
  void synthesize_tasks(const SynthContext& ctx);
  bool switch_due() const;
  bool caught_up(Drain& d);
  void switch_output();
  void finish_file();
  // drains.cpp: rings -> queues -> writer threads (and the --threads merge).
  void plan_drains();
  void start_threads();
  void stop_threads();
  void write_loop(Drain& d);
  void merge_loop();
  bool merge_one_pass(std::vector<uint64_t>& passed, size_t& finished);
  void end_round(Drain& d, bool final);
  void drainer_loop(Drain& d);
  void stop_drainers();
  void drain_pass(Drain& d, bool final = false);
  // record_handler.cpp: each kernel record on its writer thread.
  void handle(Drain& d, std::span<const uint8_t> rec, RecordExtension* ext);
  void write_kernel_record(Drain& d, std::span<const uint8_t> rec);
  void write_lost(Drain& d, std::span<const uint8_t> rec);
  void tell_exec_mapping(std::span<const uint8_t> mmap2);
  Drain& main_drain() { return *drains_.front(); }

  const RecordOptions& opts_;  // as the caller gave them: resolved values live below
  RecordPlan plan_;            // record_plan.h: -F, targets, output layout, build-ids, clock
  // Every extension in the order they are called: the caller's (which stay
  // the caller's), then those the factory made, owned here. Declared before
  // stopper_ so that they are still alive when it stops them.
  std::vector<RecordExtension*> extensions_;
  std::vector<std::unique_ptr<RecordExtension>> made_extensions_;
  ExtensionStopper stopper_{extensions_};
  ParsedEvents parsed_;
  std::vector<OpenEvent> events_;
  std::vector<format::EventDesc> ext_descs_;
  std::vector<int> cpus_;
  std::vector<pid_t> task_targets_;  // pids passed to perf_event_open (-1 for system-wide)
  uint64_t sample_type_ = 0;
  std::string command_path_;
  std::unique_ptr<SignalGuard> signals_;
  Workload workload_;
  // --switch-output: the files done so far, what starts each new one, and
  // when the current one was started (steady clock) and its preamble's size.
  std::unique_ptr<RotatedFiles> rotated_;
  LiveProcesses live_;
  std::atomic<bool> switch_requested_{false};  // SIGUSR2 (taken by the drain loop, acted on by the writer)
  bool first_file_ = true;
  std::chrono::steady_clock::time_point file_started_;
  std::optional<std::chrono::steady_clock::time_point> switch_wait_started_;  // a due switch waiting for caught_up()
  uint64_t preamble_bytes_ = 0;
  std::vector<uint8_t> tracing_blob_;  // built once, written into every file
  std::unique_ptr<format::RecordCompressor> compressor_;  // -z, until the preamble is written
  std::vector<Ring> rings_;
  BuildIdPatcher build_ids_;
  // Draining decoupled from writing: a DrainReader fills each drain's
  // queue, its writer thread (write_loop) empties it into its stream.
  // Writers share build_ids_, the extensions' callbacks and live_ under
  // shared_mu_.
  std::vector<std::unique_ptr<Drain>> drains_;
  std::vector<DrainThreadSpec> thread_specs_;  // --threads
  std::mutex shared_mu_;
  std::atomic<bool> abandon_{false};   // the recording failed: writers stop without their final marker
  std::atomic<bool> stop_drainers_{false};
  bool threads_stopped_ = false;       // stop_threads() ran: counts are in sum_
  UniqueFd stop_event_;                // --threads: wakes the drain threads to stop
  RecordSummary sum_;
};

// A drain thread only copies, and is late only when it is not scheduled
// (drains.cpp): its priority is raised; the recorder's own thread, which
// drains too, for the loop only.
void raise_drain_priority();
struct DrainPriority {
  int old;
  DrainPriority();
  ~DrainPriority();
};

}  // namespace sonde::record
