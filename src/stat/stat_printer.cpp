#include "stat/stat_printer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <numeric>

namespace sonde::stat {

namespace {

constexpr int kMetricLen = 35;  // perf's METRIC_LEN

// printf into a string: perf's formats (%'18.0f, %-*s with computed widths)
// are reproduced by the same formatter rather than re-derived.
__attribute__((format(printf, 2, 3))) void appendf(std::string& s, const char* fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof small) {
    s.append(small, n);
    return;
  }
  std::string big(n + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  s.append(big.data(), n);
}

// Formats through a runtime format string (perf picks its formats at run time).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string formatted(const char* fmt, double v) {
  char b[128];
  int n = std::snprintf(b, sizeof b, fmt, v);
  return std::string(b, n < 0 ? 0 : std::min<size_t>(n, sizeof b - 1));
}
#pragma GCC diagnostic pop

// perf's convert_unit_double.
double convert_unit(double value, char* unit) {
  *unit = ' ';
  for (char u : {'K', 'M', 'G'})
    if (value > 1000.0) {
      value /= 1000.0;
      *unit = u;
    }
  return value;
}

// The clock count (ns) of one aggregation key in the modifier context of
// `ev` (perf keys its runtime stats by exclude_user/kernel too).
const AggrCount* clock_of(const CountTable& t, const Aggregated& agg, size_t id_idx, const CounterEvent& ev) {
  const AggrCount* found = nullptr;
  for (size_t e = 0; e < t.events.size(); ++e) {
    const auto& c = t.events[e];
    if (!c.is_clock() || !c.supported || !agg.counts[id_idx][e].counted()) continue;
    if (c.attr.exclude_user != ev.attr.exclude_user || c.attr.exclude_kernel != ev.attr.exclude_kernel) continue;
    found = &agg.counts[id_idx][e];
  }
  return found;
}

}  // namespace

int elapsed_precision(double sd) {
  if (sd > 1) return 0;
  return static_cast<int>(std::lround(std::ceil(-std::log10(sd))));
}

StatPrinter::StatPrinter(std::FILE* out, PrintConfig config) : out_(out), cfg_(std::move(config)) {
  sep_ = cfg_.style == OutputStyle::Csv ? cfg_.csv_sep : " ";
}

void StatPrinter::flush() {
  std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
  std::fflush(out_);
}

void StatPrinter::header(const std::string& target) {
  if (cfg_.style != OutputStyle::Std) return;
  buf_ += "\n Performance counter stats for " + target + "'";
  if (cfg_.run_count > 1) appendf(buf_, " (%d runs)", cfg_.run_count);
  buf_ += ":\n\n";
  flush();
}

void StatPrinter::interval_header(AggrMode mode) {
  if (cfg_.style != OutputStyle::Std) return;
  if (intervals_printed_++ % 25 != 0) return;  // perf repeats it every 25 intervals
  const char* tail = "             counts %*s events\n";
  switch (mode) {
    case AggrMode::None:
      buf_ += "#           time CPU    ";
      tail = "                counts %*s events\n";
      break;
    case AggrMode::Core: buf_ += "#           time core            cpus"; break;
    case AggrMode::Die: buf_ += "#           time die          cpus"; break;
    case AggrMode::Socket: buf_ += "#           time socket cpus"; break;
    case AggrMode::Node: buf_ += "#           time node   cpus"; break;
    case AggrMode::Thread:
      buf_ += "#           time             comm-pid";
      tail = "                  counts %*s events\n";
      break;
    default: buf_ += "#           time"; break;
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  appendf(buf_, tail, 4, "unit");
#pragma GCC diagnostic pop
}

void StatPrinter::aggr_prefix(const CountTable& t, const AggrId& id, int nr) {
  bool std_out = cfg_.style == OutputStyle::Std;
  bool json = cfg_.style == OutputStyle::Json;
  const char* s = sep_.c_str();
  if (id.thread >= 0) {
    const auto& th = t.threads[id.thread];
    if (json) appendf(buf_, "\"thread\" : \"%s-%d\", ", th.comm.c_str(), th.pid);
    else appendf(buf_, "%*s-%*d%s", std_out ? 16 : 0, th.comm.c_str(), std_out ? -8 : 0, th.pid, s);
  } else if (id.core >= 0) {
    if (json) appendf(buf_, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ", id.socket, id.die, id.core, nr);
    else appendf(buf_, "S%d-D%d-C%*d%s%*d%s", id.socket, id.die, std_out ? -8 : 0, id.core, s, std_out ? 4 : 0, nr, s);
  } else if (id.die >= 0) {
    if (json) appendf(buf_, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ", id.socket, id.die, nr);
    else appendf(buf_, "S%d-D%*d%s%*d%s", id.socket, std_out ? -8 : 0, id.die, s, std_out ? 4 : 0, nr, s);
  } else if (id.socket >= 0) {
    if (json) appendf(buf_, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", id.socket, nr);
    else appendf(buf_, "S%*d%s%*d%s", std_out ? -5 : 0, id.socket, s, std_out ? 4 : 0, nr, s);
  } else if (id.node >= 0) {
    if (json) appendf(buf_, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", id.node, nr);
    else appendf(buf_, "N%*d%s%*d%s", std_out ? -5 : 0, id.node, s, std_out ? 4 : 0, nr, s);
  } else if (id.cpu >= 0) {
    if (json) appendf(buf_, "\"cpu\" : \"%d\", ", id.cpu);
    else appendf(buf_, "CPU%*d%s", std_out ? -7 : 0, id.cpu, s);
  }
}

// perf's print_metric_{std,csv,json}; fmt or unit null: no metric.
void StatPrinter::metric(const char* fmt, const char* unit, double val) {
  switch (cfg_.style) {
    case OutputStyle::Std: {
      if (!unit || !fmt) {
        appendf(buf_, "%-*s", kMetricLen, "");
        return;
      }
      std::string v = formatted(fmt, val);
      int n = 3 + static_cast<int>(v.size());
      buf_ += " # " + v;
      appendf(buf_, " %-*s", kMetricLen - n - 1, unit);
      return;
    }
    case OutputStyle::Csv: {
      if (!unit || !fmt) {
        buf_ += sep_ + sep_;
        return;
      }
      std::string v = formatted(fmt, val);
      size_t b = v.find_first_not_of(' ');
      v = b == std::string::npos ? "" : v.substr(b);
      size_t e = 0;
      while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
      std::string u = unit;
      size_t ub = u.find_first_not_of(' ');
      buf_ += sep_;
      buf_ += v.substr(0, e);
      buf_ += sep_;
      if (ub != std::string::npos) buf_ += u.substr(ub);
      return;
    }
    case OutputStyle::Json:
      appendf(buf_, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", val, unit ? unit : "(null)");
      return;
  }
}

void StatPrinter::noise(double pct) {
  if (cfg_.run_count == 1) return;
  if (cfg_.style == OutputStyle::Json) appendf(buf_, "\"variance\" : %.2f, ", pct);
  else if (cfg_.style == OutputStyle::Csv) appendf(buf_, "%s%.2f%%", sep_.c_str(), pct);
  else if (pct != 0) appendf(buf_, "  ( +-%6.2f%% )", pct);
}

void StatPrinter::running(uint64_t run, uint64_t ena) {
  double pct = 100;
  if (run != ena) pct = static_cast<double>(100 * run / ena);  // perf divides in integers
  if (cfg_.style == OutputStyle::Json)
    appendf(buf_, "\"event-runtime\" : %lu, \"pcnt-running\" : %.2f, ", static_cast<unsigned long>(run), pct);
  else if (cfg_.style == OutputStyle::Csv)
    appendf(buf_, "%s%lu%s%.2f", sep_.c_str(), static_cast<unsigned long>(run), sep_.c_str(), pct);
  else if (pct != 100)
    appendf(buf_, "  (%.2f%%)", pct);
}

// perf_stat__print_shadow_stats, for the metrics software counting has:
// CPUs utilized for the clocks, a rate per second for everything else
// when a clock was counted in the same aggregation key and context.
void StatPrinter::metrics(const CountTable& t, const Aggregated& agg, size_t id_idx, size_t event, double uval,
                          double wall_ns) {
  const auto& ev = t.events[event];
  if (ev.is_clock()) {
    if (wall_ns != 0) metric("%8.3f", "CPUs utilized", uval / (wall_ns * ev.scale));
    else metric(nullptr, "CPUs utilized", 0);
    return;
  }
  const AggrCount* clock = clock_of(t, agg, id_idx, ev);
  if (!clock) {
    metric(nullptr, nullptr, 0);
    return;
  }
  char unit = ' ';
  double ratio = 0;
  if (clock->val != 0) ratio = convert_unit(1e9 * uval / clock->val, &unit);
  std::string unit_buf = unit == ' ' ? "/sec" : std::string(1, unit) + "/sec";
  metric("%8.3f", unit_buf.c_str(), ratio);
}

}  // namespace sonde::stat

namespace sonde::stat {

void StatPrinter::line(const CountTable& t, const Aggregated& agg, size_t id_idx, size_t event, double wall_ns,
                       double noise_pct, const std::string& prefix) {
  const auto& ev = t.events[event];
  const AggrCount& c = agg.counts[id_idx][event];
  bool std_out = cfg_.style == OutputStyle::Std;
  bool json = cfg_.style == OutputStyle::Json;
  const char* s = sep_.c_str();
  buf_ += prefix;
  aggr_prefix(t, agg.ids[id_idx], c.nr);
  if (!ev.supported || !c.counted()) {
    const char* what = ev.supported ? "<not counted>" : "<not supported>";
    if (json) {
      appendf(buf_, "\"counter-value\" : \"%s\", \"unit\" : \"%s\", \"event\" : \"%s\", ", what, ev.unit.c_str(),
              ev.name.c_str());
    } else {
      appendf(buf_, "%*s%s%-*s%s%*s", std_out ? 18 : 0, what, s, std_out ? 4 : 0, ev.unit.c_str(), s,
              std_out ? -25 : 0, ev.name.c_str());
    }
    if (std_out) metric(nullptr, nullptr, 0);
    noise(noise_pct);
    running(c.run, c.ena);
    if (!std_out) metric(nullptr, "", 0);
    buf_ += '\n';
    return;
  }
  double uval = c.val * ev.scale;
  bool fraction = std::floor(ev.scale) != ev.scale;
  if (json) {
    appendf(buf_, "\"counter-value\" : \"%f\", \"unit\" : \"%s\", \"event\" : \"%s\", ", uval, ev.unit.c_str(),
            ev.name.c_str());
  } else {
    const char* fmt = !std_out          ? (fraction ? "%.2f" : "%.0f")
                      : cfg_.big_num    ? (fraction ? "%'18.2f" : "%'18.0f")
                                        : (fraction ? "%18.2f" : "%18.0f");
    buf_ += formatted(fmt, uval);
    appendf(buf_, "%s%-*s%s%-*s", s, std_out ? 4 : 0, ev.unit.c_str(), s, std_out ? 32 : 0, ev.name.c_str());
  }
  if (!std_out) {
    noise(noise_pct);
    running(c.run, c.ena);
  }
  metrics(t, agg, id_idx, event, uval, wall_ns);
  if (std_out) {
    noise(noise_pct);
    running(c.run, c.ena);
  }
  buf_ += '\n';
}

void StatPrinter::counters(const CountTable& t, const Aggregated& agg, double wall_ns,
                           const std::vector<double>& noise_pct, const struct timespec* ts) {
  std::string prefix;
  if (ts) {
    interval_header(agg.mode);
    if (cfg_.style == OutputStyle::Json)
      appendf(prefix, "{\"interval\" : %lu.%09lu, ", static_cast<unsigned long>(ts->tv_sec),
              static_cast<unsigned long>(ts->tv_nsec));
    else
      appendf(prefix, "%6lu.%09lu%s", static_cast<unsigned long>(ts->tv_sec), static_cast<unsigned long>(ts->tv_nsec),
              sep_.c_str());
  } else if (cfg_.style == OutputStyle::Json) {
    prefix = "{";
  }
  size_t nev = t.events.size();
  auto noise_of = [&](size_t e) { return e < noise_pct.size() ? noise_pct[e] : 0.0; };
  switch (agg.mode) {
    case AggrMode::Global:
    case AggrMode::None:
      for (size_t e = 0; e < nev; ++e)
        for (size_t i = 0; i < agg.ids.size(); ++i) line(t, agg, i, e, wall_ns, noise_of(e), prefix);
      break;
    case AggrMode::Thread:
      for (size_t e = 0; e < nev; ++e) {
        // perf's sort_aggr_thread: biggest first; zeros left out system-wide.
        std::vector<size_t> order(agg.ids.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return agg.counts[a][e].val > agg.counts[b][e].val; });
        for (size_t i : order) {
          if (cfg_.system_wide_per_thread && agg.counts[i][e].val * t.events[e].scale == 0.0) continue;
          line(t, agg, i, e, wall_ns, noise_of(e), prefix);
        }
      }
      break;
    default:
      for (size_t i = 0; i < agg.ids.size(); ++i)
        for (size_t e = 0; e < nev; ++e) line(t, agg, i, e, wall_ns, noise_of(e), prefix);
      break;
  }
  flush();
}

void StatPrinter::footer(const RunFacts& f) {
  if (cfg_.interval_ms || cfg_.style != OutputStyle::Std) return;
  buf_ += '\n';
  double avg = f.wall_ns / 1e9;
  if (cfg_.run_count == 1) {
    appendf(buf_, " %17.9f seconds time elapsed", avg);
    if (f.show_rusage) {
      buf_ += "\n\n";
      appendf(buf_, " %17.9f seconds user\n", f.user_s);
      appendf(buf_, " %17.9f seconds sys\n", f.sys_s);
    }
  } else {
    double sd = f.wall_stddev_ns / 1e9;
    int precision = sd > 0 ? elapsed_precision(sd) + 2 : 9;
    appendf(buf_, " %17.*f +- %.*f seconds time elapsed", precision, avg, precision, sd);
    double pct = avg != 0 ? 100.0 * sd / avg : 0;
    if (pct != 0) appendf(buf_, "  ( +-%6.2f%% )", pct);
  }
  buf_ += "\n\n";
  flush();
}

}  // namespace sonde::stat
