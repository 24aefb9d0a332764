// Recordings read by `sonde trace -i` (raw_syscalls fields and the BPF path
// strings, by the recording's own formats) and by the `sonde sched` views
// (scheduler tracepoint fields by name, COMM/FORK/EXIT records).
#include <cstdio>

#include "fuzz_input.h"
#include "sched/sched_latency.h"
#include "sched/sched_map.h"
#include "sched/sched_timehist.h"
#include "trace/trace_run.h"
#include "util/error.h"

namespace {

template <class F>
void quietly(F&& f) {
  try {
    f();
  } catch (const sonde::Error&) {
    // A one-line error is the right outcome for most inputs.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool once = [] { return std::freopen("/dev/null", "w", stdout) != nullptr; }();
  (void)once;
  sonde::fuzz::InputFile in(data, size);
  sonde::trace::TraceOptions t;
  t.input = in.path();
  t.output = "/dev/null";
  t.summary = true;
  quietly([&] { sonde::trace::run_trace(t); });
  quietly([&] { sonde::sched::latency_report(in.path()); });
  sonde::sched::TimehistOptions th;
  th.wakeups = th.state = th.summary = true;
  quietly([&] { sonde::sched::timehist_report(in.path(), th); });
  quietly([&] { sonde::sched::map_report(in.path()); });
  return 0;
}
