// Compares sonde's copy of the perf_event ABI (format/uapi/perf_event.h) with
// whichever <linux/perf_event.h> the compiler finds: built once against the
// system header and once against include/ (a 136-byte attr), and run by the
// KernelAbi ctest tests. It also shows that both can be seen in one TU. Every
// field and flag bit the header has must sit where sonde's copy has it.
// (The one place in the tree that includes the system header: as the oracle.)
#include <linux/perf_event.h>

#include <cstdio>
#include <cstring>

#include "format/perf_abi.h"
#include "kernel/perf_event.h"

namespace {

using Ours = sonde::uapi::perf_event_attr;
using Theirs = ::perf_event_attr;
int failures = 0;

void expect(bool ok, const char* what) {
  if (ok) return;
  std::printf("mismatch: %s\n", what);
  ++failures;
}

// The same value in a field of both structs must give the same bytes.
#define SAME_FIELD(f)                                                      \
  do {                                                                     \
    Theirs t{};                                                            \
    Ours o{};                                                              \
    t.f = 1;                                                               \
    o.f = 1;                                                               \
    expect(std::memcmp(&t, &o, sizeof t < sizeof o ? sizeof t : sizeof o) == 0, #f); \
  } while (0)

#define SAME_VALUE(kernel, ours) expect(static_cast<unsigned long>(kernel) == static_cast<unsigned long>(ours), #kernel)

void compare_attr() {
  SAME_FIELD(type);
  SAME_FIELD(size);
  SAME_FIELD(config);
  SAME_FIELD(sample_period);
  SAME_FIELD(sample_type);
  SAME_FIELD(read_format);
  SAME_FIELD(disabled);
  SAME_FIELD(inherit);
  SAME_FIELD(exclude_user);
  SAME_FIELD(exclude_kernel);
  SAME_FIELD(exclude_hv);
  SAME_FIELD(mmap);
  SAME_FIELD(comm);
  SAME_FIELD(freq);
  SAME_FIELD(enable_on_exec);
  SAME_FIELD(task);
  SAME_FIELD(watermark);
  SAME_FIELD(precise_ip);
  SAME_FIELD(mmap_data);
  SAME_FIELD(sample_id_all);
  SAME_FIELD(exclude_guest);
  SAME_FIELD(exclude_callchain_user);
  SAME_FIELD(mmap2);
  SAME_FIELD(comm_exec);
  SAME_FIELD(context_switch);
  SAME_FIELD(namespaces);
  SAME_FIELD(ksymbol);
  SAME_FIELD(bpf_event);
  SAME_FIELD(cgroup);
  SAME_FIELD(text_poke);
  SAME_FIELD(build_id);
  SAME_FIELD(inherit_thread);
  SAME_FIELD(remove_on_exec);
  SAME_FIELD(sigtrap);
  SAME_FIELD(wakeup_events);
  SAME_FIELD(bp_type);
  SAME_FIELD(config1);
  SAME_FIELD(config2);
  SAME_FIELD(branch_sample_type);
  SAME_FIELD(sample_regs_user);
  SAME_FIELD(sample_stack_user);
  SAME_FIELD(clockid);
  SAME_FIELD(sample_regs_intr);
  SAME_FIELD(aux_watermark);
  SAME_FIELD(sample_max_stack);
  SAME_FIELD(aux_sample_size);
  SAME_FIELD(sig_data);
#ifdef PERF_ATTR_SIZE_VER8
  SAME_FIELD(config3);
  expect(sizeof(Theirs) == sizeof(Ours), "sizeof(perf_event_attr)");
#endif
  expect(sizeof(Theirs) <= sizeof(Ours), "the header's attr is no larger than sonde's");
}

void compare_constants() {
  SAME_VALUE(PERF_EVENT_IOC_ENABLE, sonde::uapi::kPerfEventIocEnable);
  SAME_VALUE(PERF_EVENT_IOC_DISABLE, sonde::uapi::kPerfEventIocDisable);
  SAME_VALUE(PERF_EVENT_IOC_SET_OUTPUT, sonde::uapi::kPerfEventIocSetOutput);
  SAME_VALUE(PERF_EVENT_IOC_ID, sonde::uapi::kPerfEventIocId);
  SAME_VALUE(PERF_FLAG_FD_CLOEXEC, sonde::uapi::kPerfFlagFdCloexec);
  SAME_VALUE(PERF_ATTR_SIZE_VER0, sonde::uapi::kPerfAttrSizeVer0);
  SAME_VALUE(PERF_ATTR_SIZE_VER7, sonde::uapi::kPerfAttrSizeVer7);
  SAME_VALUE(PERF_TYPE_TRACEPOINT, sonde::uapi::PERF_TYPE_TRACEPOINT);
  SAME_VALUE(PERF_COUNT_SW_BPF_OUTPUT, sonde::uapi::PERF_COUNT_SW_BPF_OUTPUT);
  SAME_VALUE(PERF_COUNT_SW_CGROUP_SWITCHES, sonde::uapi::PERF_COUNT_SW_CGROUP_SWITCHES);
  SAME_VALUE(PERF_SAMPLE_IDENTIFIER, sonde::uapi::PERF_SAMPLE_IDENTIFIER);
  SAME_VALUE(PERF_SAMPLE_WEIGHT_STRUCT, sonde::uapi::PERF_SAMPLE_WEIGHT_STRUCT);
  SAME_VALUE(PERF_FORMAT_LOST, sonde::uapi::PERF_FORMAT_LOST);
}

}  // namespace

int main() {
  compare_attr();
  compare_constants();
  std::printf("<linux/perf_event.h>: %zu-byte perf_event_attr; sonde's: %zu bytes; %d mismatches\n",
              sizeof(Theirs), sizeof(Ours), failures);
  return failures == 0 ? 0 : 1;
}
