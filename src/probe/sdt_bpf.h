// The kernel side of SDT recording: the embedded BPF program (sdt.bpf.c),
// its maps, and BPF uprobe_multi links created with the raw bpf(2) syscall
// (Debian's libbpf 1.1 loads programs but predates uprobe_multi). One link
// per object file carries every site of that file (offsets, semaphore
// ref_ctr offsets, cookies): one registration and one teardown, fd-bound so
// the kernel removes all of it when the recorder dies, even by SIGKILL.
// Kernels without uprobe_multi attach the same program per site instead
// (sdt_perf_event_attach.h); the program is then loaded for perf events.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "probe/sdt_abi.h"
#include "util/fd.h"

struct bpf_object;

namespace sonde::probe {

// Layout of the BPF_LINK_CREATE attr for BPF_TRACE_UPROBE_MULTI (kernel 6.6+;
// not in the 6.1 uapi header installed here).
struct UprobeMultiLinkAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t um_flags;
  uint32_t pid;
  uint32_t pad;
};
inline constexpr uint32_t kBpfTraceUprobeMulti = 48;
inline constexpr uint32_t kBpfUprobeMultiReturn = 1;  // BPF_F_UPROBE_MULTI_RETURN: fire on return
inline constexpr uint32_t kBpfLinkTypeUprobeMulti = 12;

// The program the uprobe_multi links run: a two-instruction tail call into
// slot 0 of its own PROG_ARRAY, where SdtBpf puts the real program once
// loaded. It loads in microseconds, so links can be created (which waits
// for an RCU grace period in the kernel, 5-20 ms) while libbpf loads the
// real program and the maps are filled. A hit before slot 0 is set does
// nothing.
//
// `for_uprobe_multi` picks the expected attach type, which must match the
// real program's: uprobe_multi links need BPF_TRACE_UPROBE_MULTI, perf
// event links need 0, and the kernel refuses a tail call between programs
// of different expected attach types (EINVAL on the PROG_ARRAY update,
// checked on 6.18).
class SdtEntry {
 public:
  explicit SdtEntry(bool for_uprobe_multi);  // throws sonde::Error (runtime)
  int prog_fd() const { return prog_.get(); }
  int prog_array_fd() const { return array_.get(); }

 private:
  UniqueFd array_, prog_;
};

// One uprobe_multi link for `path` running `prog_fd`: all arrays have the
// same length. ref_ctr_offsets entries are 0 for sites without a semaphore.
// `retprobe`: the link fires when the functions at `offsets` return
// (BPF_F_UPROBE_MULTI_RETURN).
UniqueFd attach_uprobe_multi(int prog_fd, const std::string& path, std::span<const uint64_t> offsets,
                             std::span<const uint64_t> ref_ctr_offsets, std::span<const uint64_t> cookies, bool retprobe = false);

class SdtBpf {
 public:
  // Loads the program and creates its maps, with room for `site_capacity`
  // site recipes, for uprobe_multi links or (false) for uprobe perf events:
  // bpf_get_attach_cookie reads the cookie of the kind of attachment the
  // program was loaded for. Throws sonde::Error (runtime) with the
  // kernel's reason when BPF is unavailable.
  SdtBpf(uint32_t site_capacity, bool for_uprobe_multi);
  ~SdtBpf();
  SdtBpf(const SdtBpf&) = delete;
  SdtBpf& operator=(const SdtBpf&) = delete;

  void set_filter(bool filter_tgids);
  // Attaches the fork follower (sonde_sdt_fork on task_newtask, sonde_sdt_exit
  // on sched_process_exit), so children of recorded processes are recorded
  // from their first instruction. Returns an empty string on success, else
  // why it could not.
  std::string follow_forks();
  void add_tgid(pid_t tgid);
  void remove_tgid(pid_t tgid);
  // The bpf-output perf event of `cpu` (PERF_EVENT_ARRAY slot = CPU number).
  void set_output(int cpu, int perf_fd);
  // Stores the recipes of cookies first .. first + specs.size() - 1 (one
  // batch update).
  void set_sites(uint32_t first, std::span<const sonde_sdt_site_spec> specs);
  uint32_t site_capacity() const { return site_capacity_; }

  // Makes the program the target of `entry`'s tail call: from here on,
  // hits of links running the entry are recorded.
  void connect(const SdtEntry& entry);

 private:
  bpf_object* obj_ = nullptr;
  int prog_fd_ = -1, fork_prog_fd_ = -1, exit_prog_fd_ = -1;
  std::vector<UniqueFd> fork_links_;  // raw tracepoint links of the fork follower
  uint32_t site_capacity_ = 0;
  int events_fd_ = -1, sites_fd_ = -1, tgids_fd_ = -1, config_fd_ = -1;
};

// Whether this kernel has uprobe_multi links (6.6+, or a backport), asked of
// the kernel with a throw-away program and link request, as libbpf does.
// Chooses the attach route (sdt_attach_route.h).
bool uprobe_multi_supported();

}  // namespace sonde::probe
