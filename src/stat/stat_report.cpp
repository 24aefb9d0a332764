// `sonde stat report`: the rounds of a stat stream printed as perf stat
// report prints them (intervals as -I lines, the final round as the table
// with its elapsed time).
#include "stat/stat_session.h"
#include "stat/stat_stream.h"

namespace sonde::stat {

void report_stat(const std::string& path, PrintConfig print, const AggrMode* mode_override, std::FILE* out) {
  auto in = format::open_recording(path);
  CountTable table;
  StatStreamConfig config;
  CountTable prev;
  std::unique_ptr<StatPrinter> printer;
  auto on_round = [&](const CountTable& now, const StatStreamConfig& c, const StatRound& round) {
    AggrMode mode = mode_override ? *mode_override : c.mode;
    if (!printer) {
      print.interval_ms = c.interval_ms;
      printer = std::make_unique<StatPrinter>(out, print);
      prev = now;
      prev.reset_values();
    }
    if (c.interval_ms && round.time_ns) {
      CountTable d = now;
      for (size_t e = 0; e < now.events.size(); ++e)
        for (size_t ci = 0; ci < now.cpus.size(); ++ci)
          for (size_t t = 0; t < now.threads.size(); ++t) d.at(e, ci, t) = delta(now.at(e, ci, t), prev.at(e, ci, t));
      prev = now;
      timespec ts{static_cast<time_t>(round.time_ns / 1000000000ull), static_cast<long>(round.time_ns % 1000000000ull)};
      printer->counters(d, aggregate(d, mode, c.scale), c.interval_ms * 1e6, {}, &ts);
      return;
    }
    printer->header("'pipe");
    printer->counters(now, aggregate(now, mode, c.scale), static_cast<double>(round.time_ns), {}, nullptr);
    RunFacts f;
    f.wall_ns = static_cast<double>(round.time_ns);
    printer->footer(f);
  };
  read_stat_stream(*in, table, config, on_round);
}

}  // namespace sonde::stat
