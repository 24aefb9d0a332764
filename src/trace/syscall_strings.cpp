#include "trace/syscall_strings.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <cstring>

#include "bpf/embedded_object.h"
#include "format/perf_abi.h"
#include "trace/syscall_strings_abi.h"
#include "trace/syscall_strings_bpf_obj.h"  // generated: syscall_strings_bpf_o[], _len
#include "trace/syscall_table.h"
#include "util/byte_append.h"
#include "util/byte_reader.h"
#include "util/diagnostics.h"
#include "util/error.h"

namespace sonde::trace {

static_assert(sizeof(sonde_string_event) == 40 + SONDE_STRING_MAX);

namespace {

constexpr uint64_t kStringSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;

template <class T>
void put(std::vector<uint8_t>& out, const T& v) {
  append_bytes(out, &v, sizeof v);  // out of line: gcc 12 -O3 false positives (util/byte_append.h)
}

// A SAMPLE in kStringSampleType's field order; RAW padded so the record
// ends on 8 bytes (u32 size + payload).
void build_sample(std::vector<uint8_t>& out, const sonde_string_event& e) {
  const size_t len = e.len > 0 ? std::min<size_t>(static_cast<size_t>(e.len), SONDE_STRING_MAX) : 1;
  const size_t payload = 8 + len;
  const uint32_t raw_size = static_cast<uint32_t>((payload + 4 + 7) / 8 * 8 - 4);
  out.clear();
  const uint16_t size = static_cast<uint16_t>(8 + 8 + 8 + 8 + 8 + 8 + 4 + raw_size);
  put(out, uint32_t{PERF_RECORD_SAMPLE});
  put(out, format::kMiscUser);
  put(out, size);
  put(out, kStringEventId);
  put(out, e.ip);
  put(out, e.pid);
  put(out, e.tid);
  put(out, e.time);
  put(out, e.cpu);
  put(out, uint32_t{0});
  put(out, raw_size);
  put(out, e.nr);
  put(out, e.arg);
  const size_t at = out.size();
  out.resize(at + raw_size - 8, 0);
  if (e.len > 0) std::memcpy(out.data() + at, e.str, len - 1);  // the NUL stays from the zero fill
}

}  // namespace

bool parse_string_payload(std::span<const uint8_t> raw, StringPayload& out) {
  if (raw.size() < 9) return false;
  out.nr = load<uint32_t>(raw.data());
  out.arg = load<uint32_t>(raw.data() + 4);
  const char* s = reinterpret_cast<const char*>(raw.data() + 8);
  out.text = std::string_view(s, ::strnlen(s, raw.size() - 8));
  return out.arg < 6;
}

std::vector<uint8_t> string_argument_masks(SyscallSignatures& signatures) {
  std::vector<uint8_t> masks(SONDE_SYSCALL_SLOTS, 0);
  for (uint32_t nr = 0; nr < SONDE_SYSCALL_SLOTS; ++nr) {
    if (syscall_name(nr).empty()) continue;
    const auto& sig = signatures.get(nr);
    for (size_t i = 0; i < sig.args.size() && i < 6; ++i) {
      const auto& a = sig.args[i];
      const bool named = a.name.ends_with("name") || a.name.find("path") != std::string::npos;
      if (a.type == "const char *" && named) masks[nr] |= static_cast<uint8_t>(1u << i);
    }
  }
  return masks;
}

void warn_about_strings(const StringsOutcome& outcome) {
  if (!outcome.unavailable.empty()) warn("path names not read ({})", outcome.unavailable);
  if (outcome.lost) warn("{} path names lost (BPF ring buffer full)", outcome.lost);
}

SyscallStringsExtension::SyscallStringsExtension(std::vector<uint8_t> masks, StringsOutcome& outcome)
    : masks_(std::move(masks)), outcome_(outcome) {}

SyscallStringsExtension::~SyscallStringsExtension() { stop(); }

void SyscallStringsExtension::prepare(const record::RecordTarget& target, const perf_event_attr& base) {
  base_ = base;
  try {
    load(target);
  } catch (const Error& e) {
    // The lines still come, with pointers for paths, as perf's without its probe.
    stop();
    outcome_.unavailable = e.what();
  }
}

void SyscallStringsExtension::load(const record::RecordTarget& target) {
  obj_ = bpf::open_embedded({syscall_strings_bpf_o, syscall_strings_bpf_o_len}, "sonde_strings", "syscall strings");
  bpf::load_or_throw(obj_, "syscall strings");
  const int config_fd = bpf::map_fd(obj_, "config"), masks_fd = bpf::map_fd(obj_, "string_args");
  const int tgids_fd = bpf::map_fd(obj_, "tgids"), events_fd = bpf::map_fd(obj_, "events");
  lost_fd_ = bpf::map_fd(obj_, "lost");
  sonde_strings_config c{};
  c.mode = target.system_wide ? SONDE_STRINGS_ALL : SONDE_STRINGS_TARGETS;
  c.self_tgid = static_cast<uint32_t>(::getpid());
  uint32_t zero = 0;
  if (bpf_map_update_elem(config_fd, &zero, &c, BPF_ANY) != 0) throw_runtime("BPF config: {}", errno_text(errno));
  for (uint32_t nr = 0; nr < masks_.size(); ++nr)
    if (masks_[nr]) bpf_map_update_elem(masks_fd, &nr, &masks_[nr], BPF_ANY);
  uint8_t one = 1;
  std::vector<pid_t> tgids = target.pids;
  if (target.workload_pid > 0) tgids.push_back(target.workload_pid);
  for (pid_t p : tgids) {
    uint32_t k = static_cast<uint32_t>(p);
    bpf_map_update_elem(tgids_fd, &k, &one, BPF_ANY);
  }
  if (!ring_.open(events_fd)) throw_runtime("cannot map the BPF ring buffer: {}", errno_text(errno));
  auto attach = [this](const char* tp, const char* prog) {
    int link = bpf_raw_tracepoint_open(tp, bpf::prog_fd(obj_, prog));
    if (link < 0) throw_runtime("cannot attach to the {} tracepoint: {}", tp, errno_text(errno));
    links_.emplace_back(link);
  };
  if (!target.system_wide) {
    attach("task_newtask", "sonde_strings_fork");
    attach("sched_process_exit", "sonde_strings_exit");
  }
  attach("sys_enter", "sonde_strings_enter");
}

std::vector<format::EventDesc> SyscallStringsExtension::attrs() {
  if (!obj_) return {};
  format::EventDesc d;
  d.attr = perf_event_attr{};
  d.attr.size = format::kAttrSize;
  d.attr.type = PERF_TYPE_SOFTWARE;
  d.attr.config = PERF_COUNT_SW_BPF_OUTPUT;
  d.attr.sample_period = 1;
  d.attr.sample_type = kStringSampleType;
  d.attr.sample_id_all = base_.sample_id_all;
  d.attr.use_clockid = base_.use_clockid;
  d.attr.clockid = base_.clockid;
  d.name = std::string(kStringEventName);
  d.ids = {kStringEventId};
  return {d};
}

int SyscallStringsExtension::wake_fd() const { return ring_.epoll_fd(); }

// Writes the strings stamped before the horizon (all of them at the end),
// keeping the others, in the order they came.
size_t SyscallStringsExtension::produce(const record::RecordWrite& write, bool final) {
  if (!ring_.is_open()) return 0;
  ring_.consume([this](std::span<const uint8_t> data) {
    if (data.size() < sizeof(sonde_string_event)) return;
    sonde_string_event e;
    std::memcpy(&e, data.data(), sizeof e);
    // Not readable (a page not faulted in yet): the line keeps the pointer.
    if (e.len > 0) held_.push_back(e);
  });
  written_ = 0;
  size_t kept = 0;
  for (const sonde_string_event& e : held_) {
    if (!final && e.time >= horizon_) {
      held_[kept++] = e;
      continue;
    }
    build_sample(record_, e);
    write(record_);
    ++written_;
  }
  held_.resize(kept);
  return written_;
}

uint64_t SyscallStringsExtension::lost() const {
  uint64_t n = 0;
  uint32_t zero = 0;
  if (lost_fd_ >= 0) bpf_map_lookup_elem(lost_fd_, &zero, &n);
  return n;
}

void SyscallStringsExtension::stop() {
  links_.clear();
  if (lost_fd_ >= 0) outcome_.lost = lost();  // before the map closes
  ring_.close();
  if (obj_) bpf_object__close(obj_), obj_ = nullptr, lost_fd_ = -1;
}

}  // namespace sonde::trace
