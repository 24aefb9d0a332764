#include "stat/count_table.h"

namespace sonde::stat {

bool CounterEvent::is_clock() const {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_TASK_CLOCK || attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

void CountTable::reset_values() { values_.assign(events.size() * cpus.size() * threads.size(), CountValue{}); }

int CountTable::cpu_index(int cpu) const {
  for (size_t i = 0; i < cpus.size(); ++i)
    if (cpus[i] == cpu) return static_cast<int>(i);
  return -1;
}

CountValue delta(const CountValue& now, const CountValue& before) {
  auto sub = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };
  return {sub(now.val, before.val), sub(now.ena, before.ena), sub(now.run, before.run)};
}

}  // namespace sonde::stat
