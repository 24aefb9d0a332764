#include "report/call_graph_options.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::report {

namespace {

// perf: strncmp(word, name, strlen(word)) == 0, i.e. any prefix.
bool abbreviates(std::string_view word, std::string_view name) { return name.starts_with(word); }

bool parse_mode(std::string_view w, CallGraphOptions& o) {
  if (abbreviates(w, "graph")) return o.mode = GraphMode::kGraph, true;
  if (abbreviates(w, "flat")) return o.mode = GraphMode::kFlat, true;
  if (abbreviates(w, "fractal")) return o.mode = GraphMode::kFractal, true;
  if (abbreviates(w, "folded")) return o.mode = GraphMode::kFolded, true;
  return false;
}

bool parse_order(std::string_view w, CallGraphOptions& o) {
  if (abbreviates(w, "caller")) return o.order = GraphOrder::kCaller, true;
  if (abbreviates(w, "callee")) return o.order = GraphOrder::kCallee, true;
  return false;
}

bool parse_key(std::string_view w, CallGraphOptions& o) {
  if (abbreviates(w, "function")) return o.key = GraphKey::kFunction, true;
  if (abbreviates(w, "address")) return o.key = GraphKey::kAddress, true;
  if (abbreviates(w, "srcline")) return o.key = GraphKey::kSrcline, true;
  if (abbreviates(w, "branch")) return o.branch = true, true;
  return false;
}

bool parse_value(std::string_view w, CallGraphOptions& o) {
  if (abbreviates(w, "percent")) return o.value = GraphValue::kPercent, true;
  if (abbreviates(w, "period")) return o.value = GraphValue::kPeriod, true;
  if (abbreviates(w, "count")) return o.value = GraphValue::kCount, true;
  return false;
}

[[noreturn]] void unknown(std::string_view spec, std::string_view word) {
  throw_usage(
      "-g '{}': unknown word '{}' (print type graph|fractal|flat|folded|none, threshold, print limit, order "
      "caller|callee, key function|address|srcline, branch, value percent|period|count)",
      spec, word);
}

}  // namespace

CallGraphOptions parse_call_graph(std::string_view spec) {
  CallGraphOptions o;
  bool numbers = false;
  size_t at = 0;
  while (at <= spec.size()) {
    size_t comma = spec.find(',', at);
    std::string_view w = spec.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    at = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (w.empty()) continue;  // perf's strtok skips empty words
    if (abbreviates(w, "none")) {
      o.mode = GraphMode::kNone;
      return o;
    }
    if (parse_mode(w, o) || parse_order(w, o) || parse_key(w, o) || parse_value(w, o)) continue;
    if (!numbers) {  // the threshold, a percentage
      double d = 0;
      auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), d);
      if (ec != std::errc() || end != w.data() + w.size()) unknown(spec, w);
      if (d < 0 || d > 100) throw_usage("-g '{}': the threshold {} is not a percentage (0..100)", spec, w);
      o.threshold = d;
      o.threshold_set = true;
      numbers = true;
    } else {  // then the print limit
      auto n = parse_uint<uint32_t>(w);
      if (!n) unknown(spec, w);
      o.print_limit = n.value;
    }
  }
  return o;
}

}  // namespace sonde::report
