#include "probe/sdt_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "bpf/embedded_object.h"
#include "probe/sdt_bpf_obj.h"  // generated: sdt_bpf_o[], sdt_bpf_o_len
#include "util/error.h"
#include "util/fs.h"

namespace sonde::probe {

static_assert(sizeof(UprobeMultiLinkAttr) == 64);
static_assert(offsetof(UprobeMultiLinkAttr, path) == 16);
static_assert(offsetof(UprobeMultiLinkAttr, offsets) == 24);
static_assert(offsetof(UprobeMultiLinkAttr, ref_ctr_offsets) == 32);
static_assert(offsetof(UprobeMultiLinkAttr, cookies) == 40);
static_assert(offsetof(UprobeMultiLinkAttr, cnt) == 48);
static_assert(offsetof(UprobeMultiLinkAttr, um_flags) == 52);
static_assert(offsetof(UprobeMultiLinkAttr, pid) == 56);
// The BPF side is compiled by clang for another target: pin the shared layout.
static_assert(sizeof(sonde_sdt_arg_spec) == 32);
static_assert(offsetof(sonde_sdt_arg_spec, disp) == 8);
static_assert(offsetof(sonde_sdt_arg_spec, derefs) == 16);
static_assert(sizeof(sonde_sdt_site_spec) == 8 + 32 * SONDE_SDT_MAX_ARGS);
static_assert(offsetof(sonde_sdt_scratch, raw) == 8);
static_assert(offsetof(sonde_sdt_scratch, str) == 8 + sizeof(sonde_sdt_raw));
static_assert(sizeof(sonde_sdt_raw) == 120);
static_assert(offsetof(sonde_sdt_raw, site) == 4);
static_assert(offsetof(sonde_sdt_raw, probe) == 8);
static_assert(offsetof(sonde_sdt_raw, types) == 12);
static_assert(offsetof(sonde_sdt_raw, values) == 24);

SdtBpf::SdtBpf(uint32_t site_capacity, bool for_uprobe_multi) : site_capacity_(std::max<uint32_t>(site_capacity, 1)) {
  obj_ = bpf::open_embedded({sdt_bpf_o, sdt_bpf_o_len}, "sonde_sdt", "sdt");
  bpf_program* prog = bpf_object__find_program_by_name(obj_, "sonde_sdt");
  if (!prog) {
    bpf_object__close(obj_);
    obj_ = nullptr;
    throw_runtime("sdt: the embedded BPF object has no program");
  }
  // libbpf 1.1 does not know uprobe.multi sections: load as a kprobe program
  // with the uprobe_multi expected attach type, which is what the kernel
  // wants; perf event links want a plain kprobe program (type 0).
  bpf_program__set_type(prog, BPF_PROG_TYPE_KPROBE);
  bpf_program__set_expected_attach_type(prog, static_cast<bpf_attach_type>(for_uprobe_multi ? kBpfTraceUprobeMulti : 0));
  if (bpf_map* sites = bpf_object__find_map_by_name(obj_, "sites")) bpf_map__set_max_entries(sites, site_capacity_);
  bpf::load_or_throw(obj_, "sdt");
  prog_fd_ = bpf_program__fd(prog);
  fork_prog_fd_ = bpf::prog_fd(obj_, "sonde_sdt_fork");
  exit_prog_fd_ = bpf::prog_fd(obj_, "sonde_sdt_exit");
  events_fd_ = bpf::map_fd(obj_, "events");
  sites_fd_ = bpf::map_fd(obj_, "sites");
  tgids_fd_ = bpf::map_fd(obj_, "tgids");
  config_fd_ = bpf::map_fd(obj_, "config");
  if (prog_fd_ < 0 || fork_prog_fd_ < 0 || exit_prog_fd_ < 0 || events_fd_ < 0 || sites_fd_ < 0 || tgids_fd_ < 0 || config_fd_ < 0) {
    bpf_object__close(obj_);
    obj_ = nullptr;
    throw_runtime("sdt: the embedded BPF object lacks a map");
  }
}

SdtBpf::~SdtBpf() {
  fork_links_.clear();
  if (obj_) bpf_object__close(obj_);
}

std::string SdtBpf::follow_forks() {
  // Raw tracepoints: links, so released with the fd on any exit, and their
  // release does not wait for RCU grace periods as a perf tracepoint
  // event's does (~85 ms measured).
  for (auto [name, fd] : {std::pair{"task_newtask", fork_prog_fd_}, std::pair{"sched_process_exit", exit_prog_fd_}}) {
    int link = bpf_raw_tracepoint_open(name, fd);
    if (link < 0) return std::string(name) + " raw tracepoint: " + errno_text(errno);
    fork_links_.emplace_back(link);
  }
  return {};
}

void SdtBpf::set_filter(bool filter_tgids) {
  uint32_t zero = 0;
  sonde_sdt_config c{};
  c.filter_tgids = filter_tgids ? 1 : 0;
  if (bpf_map_update_elem(config_fd_, &zero, &c, BPF_ANY) != 0) throw_runtime("sdt: BPF config: {}", errno_text(errno));
}

void SdtBpf::add_tgid(pid_t tgid) {
  uint32_t k = static_cast<uint32_t>(tgid);
  uint8_t one = 1;
  bpf_map_update_elem(tgids_fd_, &k, &one, BPF_ANY);  // full map: the ancestry walk still finds children
}

void SdtBpf::remove_tgid(pid_t tgid) {
  uint32_t k = static_cast<uint32_t>(tgid);
  bpf_map_delete_elem(tgids_fd_, &k);
}

void SdtBpf::set_output(int cpu, int perf_fd) {
  uint32_t k = static_cast<uint32_t>(cpu);
  uint32_t v = static_cast<uint32_t>(perf_fd);
  if (bpf_map_update_elem(events_fd_, &k, &v, BPF_ANY) != 0)
    throw_runtime("sdt: cannot connect the bpf-output event of CPU {}: {}", cpu, errno_text(errno));
}

void SdtBpf::set_sites(uint32_t first, std::span<const sonde_sdt_site_spec> specs) {
  if (specs.empty()) return;
  uint32_t n = static_cast<uint32_t>(specs.size());
  if (first > site_capacity_ || n > site_capacity_ - first)
    throw_runtime("sdt: no room for {} more probe sites (table of {})", n, site_capacity_);
  std::vector<uint32_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) keys[i] = first + i;
  uint32_t count = n;
  if (bpf_map_update_batch(sites_fd_, keys.data(), specs.data(), &count, nullptr) != 0 || count != n)
    throw_runtime("sdt: cannot store {} probe sites: {}", n, errno_text(errno));
}

SdtEntry::SdtEntry(bool for_uprobe_multi) {
  array_.reset(bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "sonde_sdt_next", 4, 4, 1, nullptr));
  if (!array_) throw_runtime("sdt: cannot create the BPF program array: {}", errno_text(errno));
  const int32_t fd = array_.get();
  const bpf_insn insns[] = {
      // r1 = ctx (as received); r2 = &prog_array; r3 = 0; tail_call; r0 = 0; exit
      {BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, fd},
      {0, 0, 0, 0, 0},
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0},
      {BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call},
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
  };
  LIBBPF_OPTS(bpf_prog_load_opts, opts,
              .expected_attach_type = static_cast<bpf_attach_type>(for_uprobe_multi ? kBpfTraceUprobeMulti : 0));
  prog_.reset(bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_sdt_entry", "GPL", insns, std::size(insns), &opts));
  if (!prog_) throw_runtime("sdt: cannot load the BPF entry program: {}", errno_text(errno));
}

void SdtBpf::connect(const SdtEntry& entry) {
  uint32_t k = 0;
  uint32_t v = static_cast<uint32_t>(prog_fd_);
  if (bpf_map_update_elem(entry.prog_array_fd(), &k, &v, BPF_ANY) != 0)
    throw_runtime("sdt: cannot connect the BPF program: {}", errno_text(errno));
}

UniqueFd attach_uprobe_multi(int prog_fd, const std::string& path, std::span<const uint64_t> offsets,
                             std::span<const uint64_t> ref_ctr_offsets, std::span<const uint64_t> cookies,
                             bool retprobe) {
  if (offsets.empty()) return UniqueFd();
  UprobeMultiLinkAttr attr{};
  attr.prog_fd = static_cast<uint32_t>(prog_fd);
  attr.attach_type = kBpfTraceUprobeMulti;
  attr.path = reinterpret_cast<uint64_t>(path.c_str());
  attr.offsets = reinterpret_cast<uint64_t>(offsets.data());
  attr.ref_ctr_offsets = reinterpret_cast<uint64_t>(ref_ctr_offsets.data());
  attr.cookies = reinterpret_cast<uint64_t>(cookies.data());
  attr.cnt = static_cast<uint32_t>(offsets.size());
  attr.um_flags = retprobe ? kBpfUprobeMultiReturn : 0;
  int fd = static_cast<int>(::syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr));
  if (fd < 0) {
    int err = errno;
    if (err == EINVAL && !uprobe_multi_supported())
      throw_runtime("sdt: this kernel has no BPF uprobe_multi links (Linux 6.6+); SONDE_SDT_ATTACH=auto or "
                    "perf-event attaches one uprobe event per site instead");
    throw_runtime("sdt: cannot attach {} probe site(s) in {}: {}", offsets.size(), path, errno_text(err));
  }
  return UniqueFd(fd);
}

bool uprobe_multi_supported() {
  // Asked of the kernel, not its release number (distributions backport):
  // as libbpf probes it, a program of the uprobe_multi attach type is
  // loaded and a link on "/" (a directory) requested. A kernel that knows
  // uprobe_multi gets as far as opening the path and refuses it with EBADF;
  // older kernels refuse the program or the attach type (EINVAL). Cached:
  // the answer does not change while sonde runs.
  static const bool supported = [] {
    const bpf_insn insns[] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = static_cast<bpf_attach_type>(kBpfTraceUprobeMulti));
    UniqueFd prog(bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_probe_um", "GPL", insns, std::size(insns), &opts));
    if (!prog) return false;
    const uint64_t offset = 0;
    UprobeMultiLinkAttr attr{};
    attr.prog_fd = static_cast<uint32_t>(prog.get());
    attr.attach_type = kBpfTraceUprobeMulti;
    attr.path = reinterpret_cast<uint64_t>("/");
    attr.offsets = reinterpret_cast<uint64_t>(&offset);
    attr.cnt = 1;
    UniqueFd link(static_cast<int>(::syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr)));
    return link || errno == EBADF;
  }();
  return supported;
}

}  // namespace sonde::probe
