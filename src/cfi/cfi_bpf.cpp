#include "cfi/cfi_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <vector>

#include "bpf/embedded_object.h"
#include "cfi/cfi_bpf_obj.h"  // generated: cfi_bpf_o[], cfi_bpf_o_len
#include "util/error.h"

namespace sonde::cfi {

// The BPF side is compiled by clang for another target: pin the shared layout.
static_assert(sizeof(sonde_cfi_table) == 16);
static_assert(sizeof(sonde_cfi_mapping) == 32);
static_assert(sizeof(sonde_cfi_process) == 8 + 32 * SONDE_CFI_MAX_MAPPINGS);
static_assert(offsetof(sonde_cfi_sample, ips) == 48);
static_assert(sizeof(sonde_cfi_config) == 8);

namespace {

// PERF_EVENT_IOC_SET_BPF (linux/perf_event.h).
const unsigned long kPerfEventIocSetBpf = _IOW('$', 8, uint32_t);

void size_maps(bpf_object* obj, const CfiBpfSizes& sizes) {
  if (bpf_map* m = bpf_object__find_map_by_name(obj, "tables")) bpf_map__set_max_entries(m, sizes.max_tables);
  if (bpf_map* m = bpf_object__find_map_by_name(obj, "rows")) bpf_map__set_max_entries(m, sizes.max_rows);
}

}  // namespace

CfiBpf::CfiBpf(const CfiBpfSizes& sizes) {
  obj_ = bpf::open_embedded({cfi_bpf_o, cfi_bpf_o_len}, "sonde_cfi", "cfi");
  size_maps(obj_, sizes);
  bpf::load_or_throw(obj_, "cfi");
  prog_ = bpf::prog_fd(obj_, "sonde_cfi_sample");
  config_fd_ = bpf::map_fd(obj_, "config");
  stats_fd_ = bpf::map_fd(obj_, "stats");
  processes_fd_ = bpf::map_fd(obj_, "processes");
  tables_fd_ = bpf::map_fd(obj_, "tables");
  rows_fd_ = bpf::map_fd(obj_, "rows");
  events_fd_ = bpf::map_fd(obj_, "events");
  for (int fd : {prog_, config_fd_, stats_fd_, processes_fd_, tables_fd_, rows_fd_, events_fd_})
    if (fd < 0) {
      bpf_object__close(obj_);
      obj_ = nullptr;
      throw_runtime("cfi: the embedded BPF object lacks a program or map");
    }
  const int requests_fd = bpf::map_fd(obj_, "requests");
  if (!ring_.open(events_fd_) || requests_fd < 0 || !requests_.open(requests_fd)) {
    int err = errno;
    bpf_object__close(obj_);
    obj_ = nullptr;
    throw_runtime("cfi: cannot map the BPF ring buffer: {}", errno_text(err));
  }
}

CfiBpf::~CfiBpf() {
  ring_.close();
  requests_.close();
  if (obj_) bpf_object__close(obj_);
}

int CfiBpf::map_fd(const char* name) const { return obj_ ? bpf::map_fd(obj_, name) : -1; }

void CfiBpf::configure(const sonde_cfi_config& config) {
  uint32_t zero = 0;
  if (bpf_map_update_elem(config_fd_, &zero, &config, BPF_ANY) != 0)
    throw_runtime("cfi: BPF config: {}", errno_text(errno));
}

void CfiBpf::attach(int perf_event_fd) {
  if (::ioctl(perf_event_fd, kPerfEventIocSetBpf, prog_) != 0)
    throw_runtime("cfi: cannot attach the unwinder to the sampling event: {}", errno_text(errno));
}

bool CfiBpf::set_table(uint32_t index, const sonde_cfi_table& table, std::span<const uint64_t> rows) {
  constexpr size_t kBatch = 1 << 16;
  std::vector<uint32_t> keys;
  for (size_t at = 0; at < rows.size(); at += kBatch) {
    size_t n = std::min(kBatch, rows.size() - at);
    keys.resize(n);
    std::iota(keys.begin(), keys.end(), static_cast<uint32_t>(table.first + at));
    uint32_t count = static_cast<uint32_t>(n);
    if (bpf_map_update_batch(rows_fd_, keys.data(), rows.data() + at, &count, nullptr) != 0) return false;
  }
  return bpf_map_update_elem(tables_fd_, &index, &table, BPF_ANY) == 0;
}

bool CfiBpf::set_process(pid_t tgid, const sonde_cfi_process& process) {
  uint32_t k = static_cast<uint32_t>(tgid);
  return bpf_map_update_elem(processes_fd_, &k, &process, BPF_ANY) == 0;
}

void CfiBpf::forget_process(pid_t tgid) {
  uint32_t k = static_cast<uint32_t>(tgid);
  bpf_map_delete_elem(processes_fd_, &k);
}

void CfiBpf::consume(const SampleFn& on_sample) {
  ring_.consume([&](std::span<const uint8_t> data) {
    constexpr size_t kHead = offsetof(sonde_cfi_sample, ips);
    if (data.size() < kHead) return;
    sonde_cfi_sample s;
    std::memcpy(&s, data.data(), kHead);
    size_t n = std::min<size_t>(
        {static_cast<size_t>(s.nr_kernel) + s.nr_user, (data.size() - kHead) / 8, SONDE_CFI_MAX_FRAMES});
    std::memcpy(s.ips, data.data() + kHead, n * 8);
    on_sample(s, {reinterpret_cast<const uint64_t*>(s.ips), n});
  });
}

int CfiBpf::events_fd() const { return ring_.epoll_fd(); }

void CfiBpf::consume_requests(const std::function<void(pid_t)>& on_request) {
  requests_.consume([&](std::span<const uint8_t> data) {
    uint32_t tgid = 0;
    if (data.size() < sizeof tgid) return;
    std::memcpy(&tgid, data.data(), sizeof tgid);
    on_request(static_cast<pid_t>(tgid));
  });
}

int CfiBpf::requests_fd() const { return requests_.epoll_fd(); }

uint64_t CfiBpf::stat(uint32_t which) const {
  uint64_t v = 0;
  bpf_map_lookup_elem(stats_fd_, &which, &v);
  return v;
}

}  // namespace sonde::cfi
