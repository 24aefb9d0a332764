// perf record -s / perf report -T: the counts an inherit_stat recording
// carries as READ records (each inherited thread's count of each event,
// written by the kernel when the thread exits), summed per thread and event
// into the stat model's CountTable, and printed as perf's per-thread table
// (perf 6.1's util/values.c).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/session.h"
#include "format/stream_reader.h"
#include "stat/count_table.h"

namespace sonde::stat {

class ThreadCounts {
 public:
  // Takes one record of `session`'s stream if it is a READ record of an
  // event the stream described; returns whether it was taken. Rows (pid,
  // tid) and columns (events) come in the order first seen, as perf's.
  bool add(const format::RecordView& rec, const format::Session& session);
  // The table: one column per event seen, one row (ThreadEntry pid, tid)
  // per thread seen, cpus {-1}; each value the sum of that thread's READ
  // records (count, enabled and running times).
  CountTable table() const;
  // Each column's event index in the stream (perf's raw id).
  const std::vector<size_t>& stream_indexes() const { return stream_index_; }
  bool empty() const { return rows_.empty(); }

 private:
  size_t column(const format::EventInfo& ev);
  size_t row(uint32_t pid, uint32_t tid);

  std::vector<CounterEvent> columns_;
  std::vector<size_t> stream_index_;
  std::vector<std::pair<uint32_t, uint32_t>> rows_;     // (pid, tid)
  std::unordered_map<uint64_t, size_t> row_of_;         // pid << 32 | tid
  std::vector<std::vector<CountValue>> sums_;           // [row][column]
};

// perf report -T's table: "#  PID   TID  cpu-clock ..." and a row per
// thread, widths following the longest value; `raw` (perf's --pretty=raw)
// one "PID TID Name Raw Count" entry per thread and event.
std::string format_thread_counts(const ThreadCounts& counts, bool raw);

}  // namespace sonde::stat
