#include "analysis/jit_timeline.h"

#include <algorithm>

#include "jit/jit_files.h"

namespace sonde::analysis {

namespace {
constexpr uint32_t kProtReadExec = 5;
}  // namespace

void JitTimeline::on_mmap(uint32_t pid, std::string_view path, AddressSpace& space) {
  if (!jit::jitdump_pid(path)) return;
  auto [it, fresh] = dumps_.try_emplace(pid);
  if (!fresh) return;  // announced again (V8 maps it once per isolate): read once
  Dump& d = it->second;
  std::string file = jit::find_jit_file(path, copy_dirs_);
  std::string why;
  if (!jit::read_jit_file(file, jit::kMaxJitFileBytes, d.bytes, &why)) {
    problems_.push_back(why);
    return;
  }
  d.parsed = jit::parse_jitdump(std::span(reinterpret_cast<const uint8_t*>(d.bytes.data()), d.bytes.size()));
  if (!d.parsed.stopped.empty()) problems_.push_back(file + " " + d.parsed.stopped);
  d.path = space.intern_path(path);
  d.order.resize(d.parsed.code.size());
  for (uint32_t i = 0; i < d.order.size(); ++i) d.order[i] = i;
  // Stable: loads with one timestamp keep the dump's order.
  std::stable_sort(d.order.begin(), d.order.end(),
                   [&](uint32_t a, uint32_t b) { return d.parsed.code[a].time < d.parsed.code[b].time; });
  for (uint32_t i = 0; i < d.parsed.code.size(); ++i) {
    const jit::JitCode& c = d.parsed.code[i];
    if (c.unwind_size > c.eh_frame_hdr_size) d.with_unwinding.emplace(c.code_offset, i);
  }
  if (!same_clock_) place(d, UINT64_MAX, pid, space);
}

std::optional<jit::JitUnwindInfo> JitTimeline::unwinding(uint32_t pid, uint64_t code_offset) const {
  auto dump = dumps_.find(pid);
  if (dump == dumps_.end()) return std::nullopt;
  const Dump& d = dump->second;
  auto found = d.with_unwinding.find(code_offset);
  if (found == d.with_unwinding.end()) return std::nullopt;
  const jit::JitCode& c = d.parsed.code[found->second];
  // The parser checked the range against the record's bytes.
  const auto* at = reinterpret_cast<const uint8_t*>(d.bytes.data()) + c.unwind_offset;
  const uint64_t eh_frame_size = c.unwind_size - c.eh_frame_hdr_size;
  return jit::JitUnwindInfo{c.size, {at, eh_frame_size}, {at + eh_frame_size, c.eh_frame_hdr_size}};
}

void JitTimeline::advance_slow(uint32_t pid, uint64_t time, AddressSpace& space) {
  auto it = dumps_.find(pid);
  if (it != dumps_.end() && it->second.next < it->second.order.size()) place(it->second, time, pid, space);
}

void JitTimeline::place(Dump& d, uint64_t time, uint32_t pid, AddressSpace& space) {
  while (d.next < d.order.size()) {
    const jit::JitCode& c = d.parsed.code[d.order[d.next]];
    if (c.time > time) break;
    ++d.next;
    if (c.size == 0) continue;
    space.add_code(pid, c.addr, c.addr + c.size, c.code_offset, kProtReadExec, d.path);
  }
}

std::string JitTimeline::note() const {
  std::string out;
  for (const auto& p : problems_) { out += out.empty() ? "jitdump: " : "; "; out += p; }
  if (!same_clock_ && !dumps_.empty())
    out += std::string(out.empty() ? "" : "; ") +
           "the recording's clock is not the jitdump's (CLOCK_MONOTONIC): JIT code reused at one address is named "
           "after its last function";
  return out;
}

}  // namespace sonde::analysis
