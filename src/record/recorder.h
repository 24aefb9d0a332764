// `sonde record` as a library call: validate everything, open the events,
// write the stream's metadata and the synthesized start-up state, then drain
// the ring buffers until the workload exits or a signal arrives.
//
// Extension hook (SDT and other event sources): either put constructed
// RecordExtension objects into RecordOptions::extensions (they stay the
// caller's, and serve one recording: the recorder prepares and stops them),
// or set RecordOptions::extension_factory; it receives every
// `-e %provider:event` spec (in command-line order) during validation, before
// any output exists, and returns the extensions that serve them (throw
// sonde::Error usage for a bad spec); the recorder owns those. See
// record_extension.h for the life cycle.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/record_extension.h"
#include "record/switch_output.h"

namespace sonde::record {

enum class BuildIdMode {
  Auto,      // recorder: the kernel bit leaks to other sessions (docs/record.md, "Build-ids")
  Kernel,    // attr.build_id; the recorder still fills the inode-form MMAP2s the kernel sends
  Recorder,  // no kernel bit: the recorder reads every executable mapping's build-id
  None,      // -B: no build-id anywhere (MMAP2s stay in the inode form, kernel maps included)
};

using ExtensionFactory =
    std::function<std::vector<std::unique_ptr<RecordExtension>>(const std::vector<std::string>& specs)>;

struct RecordOptions {
  std::vector<std::string> events;         // -e values (comma lists allowed)
  std::optional<uint64_t> freq;            // -F
  bool freq_max = false;                   // -F max: kernel.perf_event_max_sample_rate
  std::optional<uint64_t> period;          // -c
  bool callchain = false;                  // -g / --call-graph fp|dwarf
  // --call-graph dwarf[,SIZE]: bytes of user stack copied with each sample
  // (with the user registers) for DWARF unwinding at report time; 0 = fp.
  uint32_t user_stack_bytes = 0;
  // --call-graph cfi: the kernel walks only the kernel part; an extension's
  // BPF program (src/cfi) unwinds the user part on each sample.
  bool cfi_callchain = false;
  size_t mmap_pages = 256;                 // -m: data pages per ring buffer (power of two)
  // --user-buffer-size: the user-space buffer between a drain thread and
  // its writer (record/drain_reader.h has the drop policy when it fills).
  size_t user_buffer_bytes = size_t{16} << 20;
  bool inherit = true;                     // --no-inherit clears it
  std::string output = "sonde.data";       // -o, "-" for stdout; with `threads` a directory
  // --threads[=SPEC] (record/thread_spec.h): drain threads, each owning
  // its CPUs' ring buffers and writing its own stream OUTPUT/data.N;
  // OUTPUT/data holds the synthesized and extension records.
  bool threads = false;
  std::string threads_spec = "core";
  // In-process use (`sonde top`): the stream goes to this fd instead of
  // `output` (the recorder writes to a duplicate and leaves this one open),
  // and the recording ends, as on SIGINT, when `stop_fd` becomes readable.
  // With a stop_fd the caller owns SIGINT/SIGTERM: the recorder runs on
  // the caller's thread or another, and neither blocks nor reads them.
  int output_fd = -1;
  int stop_fd = -1;
  std::vector<pid_t> pids;                 // -p
  std::vector<pid_t> tids;                 // -t
  bool system_wide = false;                // -a
  std::vector<int> cpus;                   // -C (implies system-wide on those CPUs)
  std::vector<std::string> command;        // -- CMD ARGS
  BuildIdMode build_id_mode = BuildIdMode::Auto;
  std::vector<std::string> cmdline;        // the recorder's argv, for FEAT_CMDLINE
  std::string version = "sonde";           // FEAT_VERSION
  bool quiet = false;                      // no summary line
  int compression_level = 0;               // -z / --compression-level: zstd level 1..22, 0 = off
  // -s: per-thread counts, as perf record -s: inherit_stat and the enabled/
  // running times in read_format, so the kernel writes a READ record with
  // each exiting thread's count (perf report -T shows them).
  bool per_thread_counts = false;
  // -d: data addresses, as perf record -d: PERF_SAMPLE_ADDR and DATA_SRC in
  // every sample, and the data mappings (mmap_data) to name them. Without a
  // PMU only software events fill it: page faults give the faulting address.
  bool data_addresses = false;
  bool all_user = false;                   // --all-user: exclude_kernel on every event
  bool all_kernel = false;                 // --all-kernel: exclude_user on every event
  bool user_callchain = false;             // --user-callchain: exclude_callchain_kernel (with -g/--call-graph)
  bool lbr_callchain = false;              // --call-graph lbr: refused (needs a hardware PMU with LBR)
  bool verbose = false;                    // -v: one stderr line per event opened and for the output
  SwitchOutput switch_output;              // --switch-output, --switch-max-files
  // Every event timestamps with CLOCK_MONOTONIC (perf's -k mono: attr
  // use_clockid), the clock BPF programs read: --off-cpu needs it so that
  // its samples and the kernel's share one time line.
  bool monotonic_clock = false;
  // Tracepoint filters (perf's --filter): event name as in `events` →
  // filter text, set with PERF_EVENT_IOC_SET_FILTER on each of its fds.
  std::vector<std::pair<std::string, std::string>> tracepoint_filters;
  // perf's --synth=no (or cgroup alone): the processes that exist before the
  // recording (-a, -p, -t) get no COMM/MMAP2 records read from /proc; the
  // workload's own COMM and the kernel's maps are still written.
  bool synthesize_tasks = true;

  std::vector<std::unique_ptr<RecordExtension>> extensions;
  ExtensionFactory extension_factory;
};

struct RecordSummary {
  uint64_t samples = 0;
  uint64_t lost = 0;             // every sample lost: the kernel's (LOST) and `dropped`
  uint64_t dropped = 0;          // samples the recorder dropped from its full user-space buffer
  uint64_t stacks_cut = 0;       // dwarf samples whose user stack was cut under pressure
  uint64_t stack_bytes_cut = 0;  // the user-stack bytes those lost
  uint64_t bytes = 0;
  uint64_t plain_bytes = 0;      // with compression: what the COMPRESSED records hold, expanded
  uint64_t packed_bytes = 0;     // with compression: the COMPRESSED records' size
  double seconds = 0;
  uint64_t dropped_records = 0;  // kernel record types perf 6.1 does not know
  uint64_t build_ids_read = 0;   // objects whose build-id the recorder read itself
  bool kernel_build_ids = false;
  uint64_t files = 1;            // output files written (more than one with --switch-output or --threads -o DIR)
  uint64_t drain_threads = 1;    // threads that drained the rings (the recorder's own included)
  int exit_status = 0;           // the workload's, or 0
};

// Runs a whole recording. Throws sonde::Error: usage errors (exit 2) and
// runtime errors found before the output is opened leave no output file.
// `options` is not changed: what the recorder resolves (the effective -F,
// the factory's extensions) stays inside the recording.
RecordSummary record(const RecordOptions& options);

}  // namespace sonde::record
