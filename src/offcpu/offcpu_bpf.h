// The kernel side of off-CPU recording: the embedded BPF program
// (offcpu.bpf.c), its maps, and its raw tracepoint links (sched_switch, and
// task_newtask/sched_process_exit to follow forks). Links are fds of the
// recorder: the kernel detaches everything when it exits, even by SIGKILL.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bpf/bpf_ring.h"
#include "offcpu/offcpu_abi.h"
#include "util/fd.h"

struct bpf_object;

namespace sonde::offcpu {

// With --call-graph dwarf: threads off CPU at once that can hold a user
// stack copy (preallocated, ~8.4 KB each).
inline constexpr uint32_t kUserStackCopies = 1024;

// --call-graph cfi: the fds of the CFI walker's maps (src/cfi), which the
// off-CPU program reuses to walk user stacks at switch-out.
struct CfiMaps {
  int processes = -1, tables = -1, rows = -1, requests = -1, asked = -1;
};

class OffcpuBpf {
 public:
  // Loads the program and creates its maps; with `user_stacks` (--call-graph
  // dwarf) the user stack copies' map and a larger ring buffer; with `cfi`
  // the CFI walker's maps and a map of the stacks it finds. Throws
  // sonde::Error (runtime) with the kernel's reason when BPF cannot be used.
  explicit OffcpuBpf(bool user_stacks = false, const CfiMaps* cfi = nullptr);
  ~OffcpuBpf();
  OffcpuBpf(const OffcpuBpf&) = delete;
  OffcpuBpf& operator=(const OffcpuBpf&) = delete;

  void configure(const sonde_offcpu_config& config);
  void add_tgid(pid_t tgid);
  void add_tid(pid_t tid);
  void remove_tgid(pid_t tgid);
  // Attaches the switch program (and, with `follow_forks`, the fork
  // follower). Throws sonde::Error (runtime) naming the tracepoint.
  void attach(bool follow_forks);
  void detach();

  // A long block's user registers (SONDE_OFFCPU_NREGS u64s in perf's
  // order) and stack bytes; both empty when the block has no copy.
  struct UserStack {
    std::span<const uint8_t> regs;
    std::span<const uint8_t> stack;
  };
  // Long blocks: calls `on_event` for each event in the ring buffer. The
  // spans are valid during the call.
  using EventFn = std::function<void(const sonde_offcpu_event&, const UserStack&)>;
  void consume_events(const EventFn& on_event);
  int events_fd() const;  // pollable: readable when the ring buffer has events
  // Short blocks: takes (and removes) the sums of the map the program
  // stopped adding to at the previous call, and switches it over; with
  // `all` (after detach()) every sum.
  using SumFn = std::function<void(const sonde_offcpu_key&, const sonde_offcpu_sum&)>;
  void take_sums(const SumFn& on_sum, bool all);
  // Threads off CPU now, with when they left (for the last flush).
  void for_each_start(const std::function<void(const sonde_offcpu_start&)>& fn) const;
  // The frames of a stack map id (innermost first); empty if unknown.
  std::vector<uint64_t> stack(int32_t id) const;
  uint64_t stat(uint32_t which) const;

 private:
  bpf_object* obj_ = nullptr;
  bpf::BpfRing ring_;
  int switch_prog_ = -1, fork_prog_ = -1, exit_prog_ = -1;
  int config_fd_ = -1, stats_fd_ = -1, tgids_fd_ = -1, tids_fd_ = -1, starts_fd_ = -1;
  int sums_fd_[2] = {-1, -1}, sums_slot_fd_ = -1;
  int active_sums_ = 0;  // the sums map the program adds to
  int stacks_fd_ = -1, events_fd_ = -1, copies_fd_ = -1, scratch_fd_ = -1, cfi_stacks_fd_ = -1;
  std::vector<UniqueFd> links_;
  std::vector<sonde_offcpu_key> sum_keys_;  // take_sums' scratch
  std::vector<uint64_t> cfi_stack(int32_t id) const;
  void empty_sums(int fd, const SumFn& on_sum);
};

}  // namespace sonde::offcpu
