#include "offcpu/offcpu_sample.h"

#include <algorithm>
#include <string>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/user_regs.h"

namespace sonde::offcpu {

perf_event_attr offcpu_attr(const perf_event_attr& base) {
  perf_event_attr a{};
  a.size = base.size;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_BPF_OUTPUT;
  a.sample_period = 1;
  a.sample_type = kOffcpuSampleType;
  a.read_format = base.read_format;
  a.sample_id_all = base.sample_id_all;
  a.use_clockid = base.use_clockid;
  a.clockid = base.clockid;
  if (base.sample_stack_user) {
    a.sample_type = kOffcpuDwarfSampleType;
    a.sample_regs_user = format::kUnwindRegsX86_64;
    a.sample_stack_user = std::min<uint32_t>(base.sample_stack_user, SONDE_OFFCPU_STACK_MAX);
    a.exclude_callchain_user = 1;
  }
  return a;
}

std::vector<format::EventDesc> offcpu_event_descs(const perf_event_attr& base) {
  perf_event_attr a = offcpu_attr(base);
  return {{a, std::string(kOffcpuBlockedName), {kOffcpuBlockedId}}, {a, std::string(kOffcpuPreemptName), {kOffcpuPreemptId}}};
}

namespace {

// REGS_USER then STACK_USER, as the kernel writes them; no registers and
// an empty stack when there is no copy.
void write_user_stack(format::SpanRecordWriter& o, std::span<const uint8_t> regs, std::span<const uint8_t> stack) {
  o.u64(regs.empty() ? PERF_SAMPLE_REGS_ABI_NONE : PERF_SAMPLE_REGS_ABI_64);
  o.bytes(regs);
  stack = stack.first(stack.size() & ~size_t{7});  // the kernel's sizes are 8-multiples: readers expect them
  o.u64(stack.size());
  if (stack.empty()) return;
  o.bytes(stack);
  o.u64(stack.size());  // dyn_size: all of it is the stack's
}

}  // namespace

size_t build_offcpu_sample(std::span<uint8_t> out, const OffcpuSample& s) {
  // At most 127 frames in all, markers aside, as the kernel's own call
  // chains (perf_event_max_stack): readers cap there too.
  const bool copied = s.dwarf_layout && s.regs.size() == 8 * SONDE_OFFCPU_NREGS && !s.stack.empty() &&
                      s.stack.size() <= SONDE_OFFCPU_STACK_MAX;
  const size_t nk = std::min<size_t>(s.kernel.size(), kMaxChainFrames);
  const size_t nu = copied ? 0 : std::min<size_t>(s.user.size(), kMaxChainFrames - nk);
  const uint64_t nr = (nk ? nk + 1 : 0) + (nu ? nu + 1 : 0);
  const uint64_t ip = nk ? s.kernel[0] : !s.user.empty() ? s.user[0] : 0;
  format::SpanRecordWriter o(out);
  o.u64(s.id);  // IDENTIFIER
  o.u64(ip);
  o.u32x2(s.pid, s.tid);
  o.u64(s.time);
  o.u32x2(s.cpu, 0);
  o.u64(s.ns);  // PERIOD
  o.u64(nr);
  if (nk) {
    o.u64(PERF_CONTEXT_KERNEL);
    for (size_t i = 0; i < nk; ++i) o.u64(s.kernel[i]);
  }
  if (nu) {
    o.u64(PERF_CONTEXT_USER);
    for (size_t i = 0; i < nu; ++i) o.u64(s.user[i]);
  }
  if (s.dwarf_layout) write_user_stack(o, copied ? s.regs : std::span<const uint8_t>{}, copied ? s.stack : std::span<const uint8_t>{});
  return o.finish(format::kSample, static_cast<uint16_t>(nk ? format::kMiscKernel : format::kMiscUser));
}

}  // namespace sonde::offcpu
