#include "record/record_plan.h"

#include <time.h>

#include <algorithm>

#include <fmt/format.h>

#include "kernel/perf_event.h"
#include "record/record_queue.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/parse_int.h"

namespace sonde::record {

namespace {

// The effective -F: -F max is the kernel's limit; a frequency above the
// limit is lowered to it and said (the kernel rejects it with a bare
// EINVAL, and lowers the limit by itself when sampling interrupts take too
// long), as perf does.
void plan_frequency(const RecordOptions& o, const KernelFacts& k, RecordPlan& p) {
  if (o.freq && o.period) throw_usage("-F and -c cannot be used together");
  if (o.freq && (*o.freq == 0 || *o.freq > kMaxFreq))
    throw_usage("invalid -F {}: the frequency must be 1..{} Hz", *o.freq, kMaxFreq);
  if (o.period && *o.period == 0) throw_usage("invalid -c 0: the period must be at least 1");
  if (o.freq_max && (o.freq || o.period)) throw_usage("-F max and -F/-c cannot be used together");
  if (o.period) return;
  const uint64_t max = k.max_sample_rate;
  if (o.freq_max) p.freq = max > 0 ? std::min(max, kMaxFreq) : kDefaultFreq;
  else p.freq = o.freq.value_or(kDefaultFreq);
  if (max > 0 && p.freq > max) {
    p.freq_lowered = fmt::format("-F {} lowered to {} (kernel.perf_event_max_sample_rate)", p.freq, max);
    p.freq = max;
  }
}

void check_buffers(const RecordOptions& o) {
  if (o.mmap_pages == 0 || (o.mmap_pages & (o.mmap_pages - 1)) != 0 || o.mmap_pages > (1u << 20))
    throw_usage("invalid -m {}: the number of pages must be a power of two", o.mmap_pages);
  if (o.user_buffer_bytes < RecordQueue::kMinCapacity)
    throw_usage("invalid --user-buffer-size {}: at least {} bytes", o.user_buffer_bytes, RecordQueue::kMinCapacity);
  if (o.compression_level < 0 || o.compression_level > 22)
    throw_usage("invalid compression level {}: zstd levels are 1 to 22", o.compression_level);
}

void plan_targets(const RecordOptions& o, RecordPlan& p) {
  p.tasks = !o.pids.empty() || !o.tids.empty();
  p.system_wide = o.system_wide || !o.cpus.empty();
  if (p.tasks && p.system_wide) throw_usage("-p/-t cannot be combined with -a/-C");
  if (!p.tasks && !p.system_wide && o.command.empty())
    throw_usage("nothing to record: give a command after --, or -p, -t or -a");
  p.workload = !o.command.empty() && !p.system_wide && !p.tasks;
}

void plan_output(const RecordOptions& o, RecordPlan& p) {
  if (o.output_fd < 0 && o.output.empty()) throw_usage("empty output path");
  if (o.all_user && o.all_kernel) throw_usage("--all-user and --all-kernel cannot be used together");
  const SwitchOutput& so = o.switch_output;
  if (!so.enabled && so.max_files) throw_usage("--switch-max-files needs --switch-output");
  // A pipe cannot be renamed or started again: perf refuses it too.
  if (so.enabled && o.output == "-")
    throw_usage("--switch-output cannot be used with -o - (a pipe has no files to switch)");
  if (!o.threads) return;
  if (o.output_fd >= 0) throw_usage("--threads writes a directory of streams: not with an output fd");
  if (so.enabled) throw_usage("--threads cannot be used with --switch-output");
  p.merged = o.output == "-";
  p.directory = !p.merged;
}

void plan_build_ids(const RecordOptions& o, const KernelFacts& k, RecordPlan& p) {
  switch (o.build_id_mode) {
    // Auto is the recorder's own reading: on a kernel that leaks the
    // build-id misc bit (6.18 here), an attr with build_id makes every
    // other session recording the same tasks without it (perf 6.1, which
    // then crashes on the record) receive inode-form MMAP2s marked as
    // build-id ones. docs/record.md, "Build-ids".
    case BuildIdMode::Auto:
    case BuildIdMode::Recorder: p.kernel_build_ids = false; break;
    case BuildIdMode::Kernel:
      if (!k.build_id_in_mmap2)
        throw_runtime("--buildid-mode=kernel: this kernel does not support build-ids in MMAP2 (needs Linux 5.12)");
      p.kernel_build_ids = true;
      break;
    case BuildIdMode::None:
      p.kernel_build_ids = false;
      p.build_ids_off = true;
      break;
  }
}

}  // namespace

KernelFacts read_kernel_facts(const RecordOptions& o) {
  KernelFacts k;
  if (!o.period) {
    auto max_text = read_first_line("/proc/sys/kernel/perf_event_max_sample_rate");
    if (max_text) parse_uint_into(*max_text, k.max_sample_rate);
  }
  if (o.lbr_callchain) k.cpu_pmu = kernel::has_cpu_pmu();
  if (o.build_id_mode == BuildIdMode::Kernel) k.build_id_in_mmap2 = kernel::kernel_supports_build_id();
  k.monotonic_clock = kernel::kernel_supports_clockid(CLOCK_MONOTONIC);
  return k;
}

RecordPlan plan_recording(const RecordOptions& o, const KernelFacts& k) {
  RecordPlan p;
  plan_frequency(o, k, p);
  check_buffers(o);
  plan_targets(o, p);
  plan_output(o, p);
  if (o.lbr_callchain) {
    // LBR call stacks are a hardware feature (Intel's last branch records).
    if (!k.cpu_pmu) throw_runtime("--call-graph lbr is not supported on this machine (no hardware PMU)");
    throw_runtime("--call-graph lbr is not supported by sonde (fp, or dwarf[,SIZE])");
  }
  plan_build_ids(o, k, p);
  // Timestamps on CLOCK_MONOTONIC, as `perf record -k mono`: the clock JITs
  // write their jitdump records with, so a reader can tell which function
  // was at an address at a sample's time (docs/format.md).
  p.mono_clock = k.monotonic_clock;
  // The merge compares the drains' pass times with record times.
  if (p.merged && !p.mono_clock && !o.monotonic_clock)
    throw_runtime("--threads -o - needs events timed on CLOCK_MONOTONIC (use_clockid, Linux 4.1)");
  return p;
}

}  // namespace sonde::record
