// The SDT attach route for kernels without BPF uprobe_multi links (before
// Linux 6.6): one perf event of the `uprobe` PMU per probe site, each
// running the SDT BPF program through its own BPF link (attach type
// BPF_PERF_EVENT) whose bpf_cookie is the site index, the same cookie a
// uprobe_multi link would give. So the program, its maps, the bpf-output
// events and the recording are those of the uprobe_multi route.
//
// Why each event is opened this way (checked on 6.18, docs/sdt.md):
// * pid -1 on one CPU: a system-wide uprobe event installs the breakpoint in
//   every process mapping the file, and the BPF program runs on whichever
//   CPU hits it (before, and independent of, perf's per-CPU buffers); which
//   processes count is decided in the program (tgid filter, fork follower).
// * never inherit: a uprobe-PMU event with inherit re-reads its path pointer
//   in the target at every fork, and fork/pthread_create fail with EFAULT.
// * the semaphore's file offset goes in config bits 32-63 (ref_ctr_offset),
//   so the kernel raises it in every process the probe is installed in.
// * the perf event fd is closed once the link holds it: one fd per site,
//   and releasing the link releases the event. Releasing is slow (~100 ms
//   per site, serialized in the kernel under event_mutex) but fd-bound, so
//   a killed recorder leaves nothing registered.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/fd.h"

namespace sonde::probe {

// The uprobe PMU of this kernel: its perf type and where ref_ctr_offset
// sits in attr.config (0 when the kernel has no semaphore support, < 4.20).
struct UprobePmu {
  uint32_t type = 0;
  uint32_t ref_ctr_shift = 0;
  bool has_ref_ctr = false;
};
// Reads /sys/bus/event_source/devices/uprobe/{type,format/ref_ctr_offset}.
// Throws sonde::Error (runtime) when the kernel has no uprobe PMU.
UprobePmu read_uprobe_pmu();

// One uprobe perf event + BPF link per site of `path`, running `prog_fd`
// (a kprobe-type program loaded without the uprobe_multi expected attach
// type). All spans have the same length; ref_ctr_offsets entries are 0 for
// sites without a semaphore; `retprobe` makes them return probes. Returns one link fd per site. Throws
// sonde::Error (runtime) naming the site that failed; the sites attached
// before it are released.
std::vector<UniqueFd> attach_uprobe_perf_events(int prog_fd, const std::string& path, int cpu,
                                                std::span<const uint64_t> offsets,
                                                std::span<const uint64_t> ref_ctr_offsets,
                                                std::span<const uint64_t> cookies, bool retprobe = false);

}  // namespace sonde::probe
