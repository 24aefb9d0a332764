#include "offcpu/offcpu_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include "bpf/embedded_object.h"
#include "cfi/cfi_abi.h"
#include "offcpu/offcpu_bpf_obj.h"  // generated: offcpu_bpf_o[], offcpu_bpf_o_len
#include "util/error.h"

namespace sonde::offcpu {

// The BPF side is compiled by clang for another target: pin the shared layout.
static_assert(sizeof(sonde_offcpu_config) == 24);
static_assert(sizeof(sonde_offcpu_start) == 32);
static_assert(sizeof(sonde_offcpu_key) == 24);
static_assert(sizeof(sonde_offcpu_sum) == 24);
static_assert(sizeof(sonde_offcpu_event) == 48);
static_assert(offsetof(sonde_offcpu_event, key) == 16);
static_assert(offsetof(sonde_offcpu_event, cpu) == 40);
static_assert(offsetof(sonde_offcpu_start, user_stack) == 16);
static_assert(offsetof(sonde_offcpu_stack_event, regs) == 48);
static_assert(offsetof(sonde_offcpu_stack_event, stack_size) == 48 + 8 * SONDE_OFFCPU_NREGS);
static_assert(offsetof(sonde_offcpu_stack_event, stack) == 56 + 8 * SONDE_OFFCPU_NREGS);

namespace {

// The ring buffer; with --call-graph dwarf it carries a user stack copy
// with each long block.
constexpr uint32_t kRingBytes = 1u << 20, kRingBytesWithStacks = 8u << 20;

// --call-graph cfi: stacks the CFI walker found (1 KiB each, allocated as found).
constexpr uint32_t kCfiStacks = 16384;

// The CFI walker's maps are the sampling program's (one set of tables).
void reuse_cfi_maps(bpf_object* obj, const CfiMaps& cfi) {
  const std::pair<const char*, int> maps[] = {{"processes", cfi.processes}, {"tables", cfi.tables}, {"rows", cfi.rows},
                                             {"requests", cfi.requests}, {"asked", cfi.asked}};
  for (const auto& [name, fd] : maps) {
    bpf_map* m = bpf_object__find_map_by_name(obj, name);
    if (!m || fd < 0 || bpf_map__reuse_fd(m, fd) != 0) {
      bpf_object__close(obj);
      throw_runtime("off-cpu: cannot share the CFI map '{}': {}", name, errno_text(errno));
    }
  }
  if (bpf_map* m = bpf_object__find_map_by_name(obj, "cfi_stacks")) bpf_map__set_max_entries(m, kCfiStacks);
}

void size_maps(bpf_object* obj, bool user_stacks) {
  if (bpf_map* m = bpf_object__find_map_by_name(obj, "copies")) bpf_map__set_max_entries(m, user_stacks ? kUserStackCopies : 1);
  if (bpf_map* m = bpf_object__find_map_by_name(obj, "events"))
    bpf_map__set_max_entries(m, user_stacks ? kRingBytesWithStacks : kRingBytes);
}

}  // namespace

OffcpuBpf::OffcpuBpf(bool user_stacks, const CfiMaps* cfi) {
  obj_ = bpf::open_embedded({offcpu_bpf_o, offcpu_bpf_o_len}, "sonde_offcpu", "off-cpu");
  size_maps(obj_, user_stacks);
  if (cfi) reuse_cfi_maps(obj_, *cfi);
  bpf::load_or_throw(obj_, "off-cpu");
  switch_prog_ = bpf::prog_fd(obj_, "sonde_offcpu_switch");
  fork_prog_ = bpf::prog_fd(obj_, "sonde_offcpu_fork");
  exit_prog_ = bpf::prog_fd(obj_, "sonde_offcpu_exit");
  config_fd_ = bpf::map_fd(obj_, "config");
  stats_fd_ = bpf::map_fd(obj_, "stats");
  tgids_fd_ = bpf::map_fd(obj_, "tgids");
  tids_fd_ = bpf::map_fd(obj_, "tids");
  starts_fd_ = bpf::map_fd(obj_, "starts");
  sums_fd_[0] = bpf::map_fd(obj_, "sums0");
  sums_fd_[1] = bpf::map_fd(obj_, "sums1");
  sums_slot_fd_ = bpf::map_fd(obj_, "sums_slot");
  stacks_fd_ = bpf::map_fd(obj_, "stacks");
  events_fd_ = bpf::map_fd(obj_, "events");
  copies_fd_ = bpf::map_fd(obj_, "copies");
  scratch_fd_ = bpf::map_fd(obj_, "scratch");
  cfi_stacks_fd_ = bpf::map_fd(obj_, "cfi_stacks");
  for (int fd : {switch_prog_, fork_prog_, exit_prog_, config_fd_, stats_fd_, tgids_fd_, tids_fd_, starts_fd_, sums_fd_[0],
                 sums_fd_[1], sums_slot_fd_, stacks_fd_, events_fd_, copies_fd_, scratch_fd_})
    if (fd < 0) {
      bpf_object__close(obj_);
      obj_ = nullptr;
      throw_runtime("off-cpu: the embedded BPF object lacks a program or map");
    }
  if (!ring_.open(events_fd_)) {
    int err = errno;
    bpf_object__close(obj_);
    obj_ = nullptr;
    throw_runtime("off-cpu: cannot map the BPF ring buffer: {}", errno_text(err));
  }
}

OffcpuBpf::~OffcpuBpf() {
  detach();
  ring_.close();
  if (obj_) bpf_object__close(obj_);
}

void OffcpuBpf::configure(const sonde_offcpu_config& config) {
  uint32_t zero = 0;
  if (bpf_map_update_elem(config_fd_, &zero, &config, BPF_ANY) != 0)
    throw_runtime("off-cpu: BPF config: {}", errno_text(errno));
}

void OffcpuBpf::add_tgid(pid_t tgid) {
  uint32_t k = static_cast<uint32_t>(tgid);
  uint8_t one = 1;
  bpf_map_update_elem(tgids_fd_, &k, &one, BPF_ANY);
}

void OffcpuBpf::add_tid(pid_t tid) {
  uint32_t k = static_cast<uint32_t>(tid);
  uint8_t one = 1;
  bpf_map_update_elem(tids_fd_, &k, &one, BPF_ANY);
}

void OffcpuBpf::remove_tgid(pid_t tgid) {
  uint32_t k = static_cast<uint32_t>(tgid);
  bpf_map_delete_elem(tgids_fd_, &k);
}

void OffcpuBpf::attach(bool follow_forks) {
  // Raw tracepoints: links bound to their fds, released without waiting
  // for RCU grace periods (see SdtBpf::follow_forks).
  auto open = [this](const char* name, int prog) {
    int link = bpf_raw_tracepoint_open(name, prog);
    if (link < 0) throw_runtime("off-cpu: cannot attach to the {} tracepoint: {}", name, errno_text(errno));
    links_.emplace_back(link);
  };
  if (follow_forks) {
    open("task_newtask", fork_prog_);
    open("sched_process_exit", exit_prog_);
  }
  open("sched_switch", switch_prog_);
}

void OffcpuBpf::detach() { links_.clear(); }

void OffcpuBpf::consume_events(const EventFn& on_event) {
  ring_.consume([&](std::span<const uint8_t> data) {
    if (data.size() < sizeof(sonde_offcpu_event)) return;
    sonde_offcpu_event e;
    std::memcpy(&e, data.data(), sizeof e);
    // A block with a user stack copy: the event, the registers, the stack's
    // size and that many bytes (the program sends no more).
    UserStack user;
    constexpr size_t kStackAt = offsetof(sonde_offcpu_stack_event, stack);
    if (data.size() >= kStackAt) {
      uint64_t stack_size;
      std::memcpy(&stack_size, data.data() + offsetof(sonde_offcpu_stack_event, stack_size), 8);
      if (stack_size <= data.size() - kStackAt) {
        user.regs = data.subspan(offsetof(sonde_offcpu_stack_event, regs), 8 * SONDE_OFFCPU_NREGS);
        user.stack = data.subspan(kStackAt, static_cast<size_t>(stack_size));
      }
    }
    on_event(e, user);
  });
}

int OffcpuBpf::events_fd() const { return ring_.epoll_fd(); }

void OffcpuBpf::take_sums(const SumFn& on_sum, bool all) {
  // The map the program left at the last call (a flush interval ago) holds
  // no pointer of a running program: empty it, then switch the program to
  // it. With `all` (the links are closed) the current one is emptied too.
  empty_sums(sums_fd_[1 - active_sums_], on_sum);
  if (all) {
    empty_sums(sums_fd_[active_sums_], on_sum);
    return;
  }
  active_sums_ = 1 - active_sums_;
  uint32_t zero = 0, slot = static_cast<uint32_t>(active_sums_);
  bpf_map_update_elem(sums_slot_fd_, &zero, &slot, BPF_ANY);
}

void OffcpuBpf::empty_sums(int fd, const SumFn& on_sum) {
  sum_keys_.clear();  // kept: no allocation once it has grown
  sonde_offcpu_key key{}, next{};
  const void* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    sum_keys_.push_back(next);
    key = next;
    prev = &key;
  }
  for (const auto& k : sum_keys_) {
    sonde_offcpu_sum s{};
    if (bpf_map_lookup_and_delete_elem(fd, &k, &s) == 0) on_sum(k, s);
  }
}

void OffcpuBpf::for_each_start(const std::function<void(const sonde_offcpu_start&)>& fn) const {
  uint64_t key = 0, next = 0;
  const void* prev = nullptr;
  while (bpf_map_get_next_key(starts_fd_, prev, &next) == 0) {
    sonde_offcpu_start s{};
    if (bpf_map_lookup_elem(starts_fd_, &next, &s) == 0) fn(s);
    key = next;
    prev = &key;
  }
}

std::vector<uint64_t> OffcpuBpf::stack(int32_t id) const {
  if (id >= 0 && (id & SONDE_OFFCPU_CFI_STACK_BIT)) return cfi_stack(id);
  std::vector<uint64_t> frames(SONDE_OFFCPU_MAX_FRAMES);
  uint32_t k = static_cast<uint32_t>(id);
  if (id < 0 || bpf_map_lookup_elem(stacks_fd_, &k, frames.data()) != 0) return {};
  size_t n = 0;
  while (n < frames.size() && frames[n] != 0) ++n;
  frames.resize(n);
  return frames;
}

// A stack the CFI walker found: its frame count, then the frames.
std::vector<uint64_t> OffcpuBpf::cfi_stack(int32_t id) const {
  std::vector<uint64_t> value(1 + SONDE_CFI_MAX_FRAMES);
  uint32_t k = static_cast<uint32_t>(id);
  if (cfi_stacks_fd_ < 0 || bpf_map_lookup_elem(cfi_stacks_fd_, &k, value.data()) != 0) return {};
  size_t n = std::min<size_t>(static_cast<uint32_t>(value[0]), SONDE_CFI_MAX_FRAMES);
  return {value.begin() + 1, value.begin() + 1 + static_cast<ptrdiff_t>(n)};
}

uint64_t OffcpuBpf::stat(uint32_t which) const {
  uint64_t v = 0;
  bpf_map_lookup_elem(stats_fd_, &which, &v);
  return v;
}

}  // namespace sonde::offcpu
