// How extra event sources plug into `sonde record` without the recorder
// knowing what they are. The SDT support (src/probe) is one: it opens
// per-CPU bpf-output events fed by a BPF program, and needs to hear about
// the target's processes and mappings to attach probes in objects loaded
// later (dlopen).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "elf/build_id.h"
#include "format/features.h"
#include "format/uapi/perf_event.h"

namespace sonde::record {

// What is being recorded, known before the stream header is written.
struct RecordTarget {
  std::vector<pid_t> pids;        // -p targets (thread-group ids), or the forked workload once it exists
  std::vector<pid_t> tids;        // -t targets
  bool system_wide = false;       // -a / -C
  std::vector<int> cpus;          // the CPUs events are opened on
  std::string command_path;       // -- CMD: the resolved executable ("" otherwise)
  pid_t workload_pid = -1;        // -- CMD: the forked child, stopped before exec
};

// Writes one whole record into the recording (extensions that make their
// own records: RecordExtension::produce).
using RecordWrite = std::function<void(std::span<const uint8_t>)>;

// One fd of the recorder's first (sampling) event, as opened: per CPU and target.
struct SamplingEvent {
  int fd = -1;
  uint64_t id = 0;  // the kernel's id (PERF_EVENT_IOC_ID)
  int cpu = -1;
};

// An extension overrides what it does; every other hook does nothing. An
// extension that only listens (the build-id cache keeper) overrides
// prepare, on_exec_mapping and stop; one that writes records it makes
// (off-CPU) adds attrs, wake_fd and produce; one that opens kernel events
// (SDT) adds adds_events, attrs, ring_fds and, if it edits them,
// rewrite_sample; one that works on the recorder's own samples (cfi)
// adds on_sampling_events.
class RecordExtension {
 public:
  virtual ~RecordExtension() = default;

  // Called once the target is known and before the stream header is written.
  // `base` is the attr of the recorder's first event: extension events must
  // use the same sample_type and sample_id_all so every record parses with
  // one sample_id layout. Throws sonde::Error to abort the recording.
  virtual void prepare(const RecordTarget& target, const perf_event_attr& base) = 0;

  // true for an extension that opens kernel events of its own (ring_fds):
  // asked before prepare, so the recorder's samples then carry the RAW field
  // those events need. An extension that only listens or produces its
  // records itself keeps the recorder's samples as they are.
  virtual bool adds_events() const { return false; }

  // HEADER_ATTR records (attr, ids, name) to write for this extension: the
  // events of its ring_fds and of the samples it produces. The ids must not
  // collide with kernel event ids (use values >= 1<<62).
  virtual std::vector<format::EventDesc> attrs() { return {}; }

  // Per-CPU perf event fds (index = position in target.cpus) whose ring
  // buffers the recorder maps and drains. Owned by the extension.
  virtual std::vector<int> ring_fds() { return {}; }

  // A SAMPLE drained from one of ring_fds, in a writable copy: the extension
  // may rewrite it in place (e.g. its IDENTIFIER to name the probe). Return
  // false to drop it. By default it is written as drained.
  virtual bool rewrite_sample(std::span<uint8_t> /*record*/) { return true; }

  // The recorder's first event, opened (after prepare): an extension that
  // runs a BPF program on its samples attaches it here (--call-graph cfi).
  // Throws sonde::Error to abort the recording.
  virtual void on_sampling_events(std::span<const SamplingEvent> /*events*/) {}

  // An fd the recorder polls with the ring buffers (readable when the
  // extension has records to produce), or -1.
  virtual int wake_fd() const { return -1; }

  // Records the extension makes itself rather than drains from ring_fds
  // (the off-CPU samples). Called after every drain pass of the recorder's
  // loop (at least every 100 ms), and once more with `final` after sampling
  // stopped. Returns how many SAMPLE records it wrote.
  virtual size_t produce(const RecordWrite& /*write*/, bool /*final*/) { return 0; }

  // Called before produce() at the end of a round: every kernel record
  // stamped before `ns` (the recording's clock) is in the stream by now. An
  // extension whose records carry a time of their own keeps back those not
  // older than it for a later round: a reader sorting by rounds (perf's
  // FINISHED_ROUND rule) would otherwise release them before kernel records
  // of the same moment still in the rings (docs/format.md).
  virtual void drained_until(uint64_t /*ns*/) {}

  // Process and mapping events as the recorder sees them.
  virtual void on_fork(pid_t /*pid*/, pid_t /*ppid*/) {}
  virtual void on_exit(pid_t /*pid*/) {}
  virtual void on_exec_mapping(pid_t /*pid*/, const std::string& /*path*/, const BuildId& /*id*/) {}

  // Detach everything. Called on every way out of the recording.
  virtual void stop() = 0;
};

}  // namespace sonde::record
