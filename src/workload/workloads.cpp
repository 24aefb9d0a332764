#include "workload/workloads.h"

#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "util/error.h"
#include "util/parse_int.h"

// The hot functions keep perf's names and C linkage: perf's tests grep a
// report for "noploop" or "test_loop", and `perf test -vv Symbols` output for
// the plain name at the end of a line. noinline keeps each one a frame.
namespace {

std::atomic<bool> g_done{false};

// Sets g_done after `seconds`: the loops spin on it, as perf's do on the flag
// its SIGALRM handler sets (a timer thread leaves the process's signal
// dispositions alone).
std::thread stop_after(unsigned seconds) {
  g_done = false;
  return std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    g_done = true;
  });
}

unsigned seconds_arg(const std::vector<std::string>& args, const std::string& name) {
  if (args.empty()) return 1;
  auto n = sonde::parse_uint<unsigned>(args[0], 0, 86400);
  if (!n) sonde::throw_usage("workload {}: invalid duration '{}' (seconds, 0 to 86400)", name, args[0]);
  return n.value;
}

}  // namespace

extern "C" {

__attribute__((noinline)) void noploop(void) {
  while (!g_done.load(std::memory_order_relaxed)) {
  }
}

__attribute__((noinline)) void test_loop(void) {
  while (!g_done.load(std::memory_order_relaxed)) {
  }
}

// leafloop: a call chain parent -> child -> leaf, the leaf doing the work.
__attribute__((noinline)) int leaf(int b) {
  volatile int sum = b;
  for (int i = 0; i < 1000; ++i) sum = sum + i;
  return sum;
}
__attribute__((noinline)) void child(void) {
  while (!g_done.load(std::memory_order_relaxed)) leaf(1);
}
__attribute__((noinline)) void parent(void) { child(); }

__attribute__((noinline)) double sqrtloop(void) {
  volatile double x = 0;
  while (!g_done.load(std::memory_order_relaxed)) x = std::sqrt(x + 2.0);
  return x;
}

}  // extern "C"

namespace sonde::workload {

std::vector<std::string> workload_names() { return {"noploop", "thloop", "leafloop", "sqrtloop"}; }

int run_workload(const std::string& name, const std::vector<std::string>& args) {
  if (name != "noploop" && name != "thloop" && name != "leafloop" && name != "sqrtloop")
    throw_usage("no workload '{}' (noploop, thloop, leafloop, sqrtloop)", name);
  std::thread timer = stop_after(seconds_arg(args, name));
  // Newer perf names its noploop thread so that scheduler views can find
  // it (perf's sched.sh greps `perf sched latency` for perf-noploop).
  if (name == "noploop") ::prctl(PR_SET_NAME, "perf-noploop", 0, 0, 0), noploop();
  if (name == "thloop") {
    // Two threads in test_loop, as perf's: per-thread modes see both.
    std::thread other(test_loop);
    test_loop();
    other.join();
  }
  if (name == "leafloop") parent();
  if (name == "sqrtloop") sqrtloop();
  timer.join();
  return 0;
}

}  // namespace sonde::workload
