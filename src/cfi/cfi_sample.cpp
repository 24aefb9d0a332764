#include "cfi/cfi_sample.h"

#include <algorithm>

#include "format/perf_abi.h"
#include "format/record_builder.h"
#include "format/uapi/perf_event.h"

namespace sonde::cfi {

static_assert(kWritableSampleType == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                                      PERF_SAMPLE_RAW));

namespace {

bool is_marker(uint64_t ip) { return ip >= PERF_CONTEXT_MAX; }

// The call chain: PERF_CONTEXT_KERNEL and the kernel frames, then
// PERF_CONTEXT_USER and the user frames; 127 frames at most, markers aside.
void write_chain(format::SpanRecordWriter& o, const sonde_cfi_sample& s, std::span<const uint64_t> frames) {
  size_t nk_in = std::min<size_t>(s.nr_kernel, frames.size());
  auto kernel = frames.first(nk_in);
  auto user = frames.subspan(nk_in).first(std::min<size_t>(s.nr_user, frames.size() - nk_in));
  size_t nk = static_cast<size_t>(std::count_if(kernel.begin(), kernel.end(), [](uint64_t ip) { return !is_marker(ip); }));
  size_t nu = std::min<size_t>(user.size(), SONDE_CFI_MAX_FRAMES - std::min<size_t>(nk, SONDE_CFI_MAX_FRAMES));
  o.u64((nk ? nk + 1 : 0) + (nu ? nu + 1 : 0));
  if (nk) {
    o.u64(PERF_CONTEXT_KERNEL);
    for (uint64_t ip : kernel)
      if (!is_marker(ip)) o.u64(ip);
  }
  if (nu) {
    o.u64(PERF_CONTEXT_USER);
    for (size_t i = 0; i < nu; ++i) o.u64(user[i]);
  }
}

}  // namespace

size_t build_cfi_sample(std::span<uint8_t> out, uint64_t sample_type, uint64_t id, const sonde_cfi_sample& s,
                        std::span<const uint64_t> frames) {
  format::SpanRecordWriter o(out);
  if (sample_type & PERF_SAMPLE_IDENTIFIER) o.u64(id);
  if (sample_type & PERF_SAMPLE_IP) o.u64(s.ip);
  if (sample_type & PERF_SAMPLE_TID) o.u32x2(s.pid, s.tid);
  if (sample_type & PERF_SAMPLE_TIME) o.u64(s.time);
  if (sample_type & PERF_SAMPLE_ID) o.u64(id);
  if (sample_type & PERF_SAMPLE_CPU) o.u32x2(s.cpu, 0);
  if (sample_type & PERF_SAMPLE_PERIOD) o.u64(s.period);
  if (sample_type & PERF_SAMPLE_CALLCHAIN) write_chain(o, s, frames);
  if (sample_type & PERF_SAMPLE_RAW) o.u32x2(4, 0);  // an empty RAW: its u32 size and 4 bytes of padding
  return o.finish(format::kSample, s.misc);
}

}  // namespace sonde::cfi
