// perf 6.1's `perf stat` output, byte for byte: the standard table, CSV
// (-x SEP) and JSON (-j) lines, interval prefixes and headers (-I), the
// noise column (-r) and the footer with elapsed, user and sys time.
// (perf's util/stat-display.c and stat-shadow.c are the reference: same
// printf formats, same field order, same metric rules.)
#pragma once

#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "stat/aggregate.h"
#include "stat/count_table.h"

namespace sonde::stat {

enum class OutputStyle { Std, Csv, Json };

struct PrintConfig {
  OutputStyle style = OutputStyle::Std;
  std::string csv_sep = ",";
  bool big_num = true;   // thousands separators in the standard table (locale's)
  int run_count = 1;     // -r
  unsigned interval_ms = 0;
  bool system_wide_per_thread = false;  // -a --per-thread: zero rows are left out
};

// The whole-run facts of the footer.
struct RunFacts {
  double wall_ns = 0;         // mean over runs
  double wall_stddev_ns = 0;  // of the mean (perf's stddev_stats), -r only
  bool show_rusage = false;   // a workload, one run
  double user_s = 0, sys_s = 0;
};

class StatPrinter {
 public:
  StatPrinter(std::FILE* out, PrintConfig config);

  // "\n Performance counter stats for 'true' (3 runs):\n\n"; `target` is
  // perf's wording without the closing quote: "'true", "'system wide",
  // "process id '1234". Standard output only.
  void header(const std::string& target);
  // One block of counter lines. `wall_ns` divides task-clock into "CPUs
  // utilized" (the interval length with -I); `noise_pct` (-r) holds each
  // event's relative stddev (empty: none); `interval_ts` is the -I time
  // since the start, null for the summary.
  void counters(const CountTable& table, const Aggregated& agg, double wall_ns,
                const std::vector<double>& noise_pct, const struct timespec* interval_ts);
  void footer(const RunFacts& facts);

 private:
  void line(const CountTable& table, const Aggregated& agg, size_t id_idx, size_t event, double wall_ns,
            double noise, const std::string& prefix);
  void interval_header(AggrMode mode);
  void aggr_prefix(const CountTable& table, const AggrId& id, int nr);
  void metric(const char* fmt, const char* unit, double val);
  void metrics(const CountTable& table, const Aggregated& agg, size_t id_idx, size_t event, double uval,
               double wall_ns);
  void noise(double pct);
  void running(uint64_t run, uint64_t ena);
  void flush();

  std::FILE* out_;
  PrintConfig cfg_;
  std::string sep_;  // " " for the table, csv_sep for CSV
  std::string buf_;
  int intervals_printed_ = 0;
};

// perf's get_precision-based footer format, exposed for tests.
int elapsed_precision(double stddev_s);

}  // namespace sonde::stat
