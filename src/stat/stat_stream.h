// `sonde stat record` / `stat report`: counts in the pipe-mode stream, as
// perf stat record writes them: HEADER_ATTR per event (with the ids of its
// counters), EVENT_UPDATE unit/scale/name, THREAD_MAP, CPU_MAP,
// STAT_CONFIG, then per reading one STAT per counter and a STAT_ROUND.
// Every round is complete on its own: a recorder killed mid-way leaves
// every earlier round readable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "format/stream_reader.h"
#include "format/stream_writer.h"
#include "stat/aggregate.h"
#include "stat/count_table.h"

namespace sonde::stat {

class Counters;

// The ids of the counters, per (event, cpu, thread): 0 where none is open.
using CounterIds = std::function<uint64_t(size_t event, size_t cpu_idx, size_t thread_idx)>;

class StatStreamWriter {
 public:
  explicit StatStreamWriter(format::StreamWriter& out) : out_(out) {}
  void write_header(const CountTable& table, const CounterIds& ids, AggrMode mode, unsigned interval_ms);
  // One STAT per open counter (cumulative values), then the STAT_ROUND.
  void write_round(const CountTable& table, const CounterIds& ids, bool final, uint64_t time_ns);

 private:
  format::StreamWriter& out_;
};

struct StatStreamConfig {
  AggrMode mode = AggrMode::Global;
  unsigned interval_ms = 0;
  bool scale = true;
};

// What one STAT_ROUND delivers: the cumulative table after it.
struct StatRound {
  bool final = false;
  uint64_t time_ns = 0;
};

// Reads a stat stream (sonde's or perf's). `on_round` sees the table after
// every round. Throws a runtime error when the stream has no STAT records'
// header (THREAD_MAP/CPU_MAP/attrs) or a STAT names an unknown id.
void read_stat_stream(format::RecordReader& in, CountTable& table, StatStreamConfig& config,
                      const std::function<void(const CountTable&, const StatStreamConfig&, const StatRound&)>& on_round);

}  // namespace sonde::stat
