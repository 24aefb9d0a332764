// The SAMPLE records the recorder builds for off-CPU blocks decode, with the
// format library's own decoder, to exactly what went in.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "format/perf_abi.h"
#include "format/session.h"
#include "format/user_regs.h"
#include "offcpu/offcpu_extension.h"
#include "offcpu/offcpu_sample.h"
#include "util/error.h"

namespace sonde::offcpu {
namespace {

perf_event_attr base_attr() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = 1;
  return a;
}

TEST(OffcpuSample, RoundTripsThroughTheSampleDecoder) {
  const std::array<uint64_t, 3> kernel{0xffffffff81000010, 0xffffffff81000020, 0xffffffff81000030};
  const std::array<uint64_t, 2> user{0x401000, 0x402000};
  OffcpuSample s;
  s.id = kOffcpuPreemptId;
  s.pid = 100;
  s.tid = 101;
  s.cpu = 1;
  s.time = 123456789;
  s.ns = 50000000;
  s.kernel = kernel;
  s.user = user;
  std::vector<uint8_t> buf(kOffcpuSampleMax);
  size_t n = build_offcpu_sample(buf, s);
  ASSERT_EQ(n, 8u + 7 * 8 + (2 + 3 + 2) * 8);
  format::RecordHeader h;
  std::memcpy(&h, buf.data(), sizeof h);
  EXPECT_EQ(h.type, format::kSample);
  EXPECT_EQ(h.size, n);
  EXPECT_EQ(h.misc, format::kMiscKernel);

  perf_event_attr attr = offcpu_attr(base_attr());
  EXPECT_EQ(attr.sample_type, kOffcpuSampleType);
  EXPECT_EQ(attr.config, static_cast<uint64_t>(PERF_COUNT_SW_BPF_OUTPUT));
  EXPECT_EQ(attr.use_clockid, 1u);
  format::Sample out;
  ASSERT_TRUE(format::decode_sample_body(attr, std::span<const uint8_t>(buf).subspan(8, n - 8), out));
  EXPECT_EQ(out.id, kOffcpuPreemptId);
  EXPECT_EQ(out.ip, kernel[0]);
  EXPECT_EQ(out.pid, 100u);
  EXPECT_EQ(out.tid, 101u);
  EXPECT_EQ(out.time, 123456789u);
  EXPECT_EQ(out.cpu, 1u);
  EXPECT_EQ(out.period, 50000000u);
  ASSERT_EQ(out.callchain_size(), 7u);
  EXPECT_EQ(out.callchain_at(0), static_cast<uint64_t>(PERF_CONTEXT_KERNEL));
  EXPECT_EQ(out.callchain_at(3), kernel[2]);
  EXPECT_EQ(out.callchain_at(4), static_cast<uint64_t>(PERF_CONTEXT_USER));
  EXPECT_EQ(out.callchain_at(6), user[1]);
}

TEST(OffcpuSample, UserOnlyStackIsAUserSample) {
  const std::array<uint64_t, 1> user{0x401000};
  OffcpuSample s;
  s.user = user;
  std::vector<uint8_t> buf(kOffcpuSampleMax);
  size_t n = build_offcpu_sample(buf, s);
  format::RecordHeader h;
  std::memcpy(&h, buf.data(), sizeof h);
  EXPECT_EQ(h.misc, format::kMiscUser);
  EXPECT_EQ(n, 8u + 7 * 8 + 2 * 8);
}

TEST(OffcpuSample, AtMost127FramesInAllAsTheKernelWrites) {
  std::vector<uint64_t> kernel(20, 0xffffffff81000010), user(200, 0x401000);
  OffcpuSample s;
  s.kernel = kernel;
  s.user = user;
  std::vector<uint8_t> buf(kOffcpuSampleMax);
  size_t n = build_offcpu_sample(buf, s);
  EXPECT_EQ(n, kOffcpuChainSampleMax);
  format::Sample out;
  ASSERT_TRUE(format::decode_sample_body(offcpu_attr(base_attr()), std::span<const uint8_t>(buf).subspan(8, n - 8), out));
  EXPECT_EQ(out.callchain_size(), 2u + 127u);
  EXPECT_EQ(out.callchain_at(21), static_cast<uint64_t>(PERF_CONTEXT_USER));
}

perf_event_attr dwarf_base() {
  perf_event_attr a = base_attr();
  a.sample_regs_user = format::kUnwindRegsX86_64;
  a.sample_stack_user = 65528;  // more than the program copies
  return a;
}

TEST(OffcpuSample, DwarfBlockCarriesRegistersAndStackAndNoUserFrames) {
  const perf_event_attr attr = offcpu_attr(dwarf_base());
  EXPECT_EQ(attr.sample_type, kOffcpuDwarfSampleType);
  EXPECT_EQ(attr.sample_regs_user, format::kUnwindRegsX86_64);
  EXPECT_EQ(attr.sample_stack_user, static_cast<uint32_t>(SONDE_OFFCPU_STACK_MAX));
  const std::array<uint64_t, 2> kernel{0xffffffff81000010, 0xffffffff81000020};
  const std::array<uint64_t, 1> user{0x401000};
  std::array<uint8_t, 8 * SONDE_OFFCPU_NREGS> regs{};
  for (size_t i = 0; i < regs.size(); ++i) regs[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> stack(4096);
  for (size_t i = 0; i < stack.size(); ++i) stack[i] = static_cast<uint8_t>(i * 7);
  OffcpuSample s;
  s.kernel = kernel;
  s.user = user;
  s.dwarf_layout = true;
  s.regs = regs;
  s.stack = stack;
  std::vector<uint8_t> buf(kOffcpuSampleMax);
  size_t n = build_offcpu_sample(buf, s);
  format::Sample out;
  ASSERT_TRUE(format::decode_sample_body(attr, std::span<const uint8_t>(buf).subspan(8, n - 8), out));
  EXPECT_EQ(out.callchain_size(), 3u) << "the kernel part only: the unwinder makes the user part";
  EXPECT_EQ(out.regs_abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  EXPECT_TRUE(std::equal(out.regs_user.begin(), out.regs_user.end(), regs.begin(), regs.end()));
  EXPECT_TRUE(std::equal(out.stack_user.begin(), out.stack_user.end(), stack.begin(), stack.end()));
}

TEST(OffcpuSample, DwarfSumWithoutACopyKeepsItsFramePointerFrames) {
  const std::array<uint64_t, 1> kernel{0xffffffff81000010};
  const std::array<uint64_t, 2> user{0x401000, 0x402000};
  OffcpuSample s;
  s.kernel = kernel;
  s.user = user;
  s.dwarf_layout = true;
  std::vector<uint8_t> buf(kOffcpuSampleMax);
  size_t n = build_offcpu_sample(buf, s);
  format::Sample out;
  ASSERT_TRUE(format::decode_sample_body(offcpu_attr(dwarf_base()), std::span<const uint8_t>(buf).subspan(8, n - 8), out));
  EXPECT_EQ(out.callchain_size(), 5u);
  EXPECT_EQ(out.regs_abi, static_cast<uint64_t>(PERF_SAMPLE_REGS_ABI_NONE));
  EXPECT_TRUE(out.regs_user.empty());
  EXPECT_TRUE(out.stack_user.empty());
}

TEST(OffcpuSample, TwoEventsNamedAsPerf) {
  auto descs = offcpu_event_descs(base_attr());
  ASSERT_EQ(descs.size(), 2u);
  EXPECT_EQ(descs[0].name, "offcpu-time");
  EXPECT_EQ(descs[0].ids, std::vector<uint64_t>{kOffcpuBlockedId});
  EXPECT_EQ(descs[1].name, "offcpu-time:preempt");
  EXPECT_EQ(descs[1].ids, std::vector<uint64_t>{kOffcpuPreemptId});
}

TEST(OffcpuThresh, ParsesMillisecondsAndRefusesTheRest) {
  EXPECT_EQ(parse_offcpu_thresh("0"), 0u);
  EXPECT_EQ(parse_offcpu_thresh("20"), 20u);
  EXPECT_EQ(parse_offcpu_thresh("3600000"), 3600000u);
  for (const char* bad : {"", "-1", "abc", "1.5", "3600001", "10ms"}) {
    try {
      parse_offcpu_thresh(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << bad;
      EXPECT_NE(std::string(e.what()).find("invalid --off-cpu-thresh"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sonde::offcpu

namespace sonde::offcpu {
namespace {

TEST(OffcpuKernelStack, TrimsTheTracingFramesBeforeTheScheduler) {
  const std::string kallsyms =
      "ffffffff81000000 T _text\n"
      "ffffffff82265300 T __schedule\n"
      "ffffffffc0001000 t bpf_prog_x\t[bpf]\n"
      "ffffffff82265c00 T schedule\n"
      "ffffffff814cae00 T bpf_trace_run4\n";
  SchedulerRange r = scheduler_range(kallsyms);
  EXPECT_EQ(r.begin, 0xffffffff82265300u);
  EXPECT_EQ(r.end, 0xffffffff82265c00u);
  std::vector<uint64_t> frames{0xffffffffc00012dd, 0xffffffff814cae9d, 0xffffffff82265908, 0xffffffff82266273};
  trim_to_scheduler(frames, r);
  EXPECT_EQ(frames, (std::vector<uint64_t>{0xffffffff82265908, 0xffffffff82266273}));
  // Without __schedule in the stack (or in kallsyms), nothing is dropped.
  std::vector<uint64_t> other{0xffffffff814cae9d, 0xffffffff82266273};
  trim_to_scheduler(other, r);
  EXPECT_EQ(other.size(), 2u);
  trim_to_scheduler(frames, scheduler_range("ffffffff81000000 T _text\n"));
  EXPECT_EQ(frames.size(), 2u);
}

}  // namespace
}  // namespace sonde::offcpu
