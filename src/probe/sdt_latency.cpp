#include "probe/sdt_latency.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "format/session.h"
#include "util/error.h"
#include "util/parse_int.h"

namespace sonde::probe {

namespace {

// 3 significant digits in the unit that fits: "850 ns", "1.06 ms", "2.50 s".
std::string duration_text(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.3g} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
  return fmt::format("{:.3g} s", ns / 1e9);
}

}  // namespace

unsigned parse_latency_key(const std::string& text) {
  if (text == "tid") return 0;
  if (text.starts_with("arg"))
    if (auto n = parse_uint<unsigned>(std::string_view(text).substr(3), 1, 12)) return n.value;
  throw_usage("invalid --key '{}' (tid, or arg1..arg12)", text);
}

SdtLatency::SdtLatency(LatencySpec spec) : spec_(std::move(spec)) {
  for (const std::string* p : {&spec_.begin, &spec_.end})
    if (p->size() < 4 || (*p)[0] != '%' || p->find(':') == std::string::npos)
      throw_usage("sdt latency: '{}' is not a probe name (%PROVIDER:EVENT)", *p);
  if (spec_.begin == spec_.end) throw_usage("sdt latency: BEGIN and END are the same probe ({})", spec_.begin);
}

void SdtLatency::require_hits(const std::string& input) const {
  std::set<std::string> names;
  for (const format::EventInfo* e : seen_) names.insert(e->name);
  for (const std::string* p : {&spec_.begin, &spec_.end}) {
    if (names.count(*p)) continue;
    std::string list;
    for (const auto& n : names) { list += list.empty() ? "" : ", "; list += n; }
    throw_runtime("sdt latency: no hit of {} in {} (probes recorded: {})", *p, input, list.empty() ? "none" : list);
  }
}

void SdtLatency::add(const format::Sample& s) {
  if (!is_sdt_sample(s)) return;
  seen_.insert(s.event);
  const std::string& name = s.event->name;
  const bool is_begin = name == spec_.begin, is_end = name == spec_.end;
  if (!is_begin && !is_end) return;
  uint64_t key = s.tid;
  if (spec_.key_arg) {
    if (!decode_sdt_values(s.raw, values_) || values_.size() < spec_.key_arg || values_[spec_.key_arg - 1].fault)
      return;
    const SdtValue& k = values_[spec_.key_arg - 1];
    key = k.is_string ? std::hash<std::string_view>{}(k.text) : k.bits;  // a string keys by its text
  }
  if (is_begin) {
    ++begins_;
    auto [it, fresh] = open_.try_emplace(key, s.time);
    if (!fresh) {
      ++replaced_begins_;  // a begin again before its end: the later one counts
      it->second = s.time;
    }
    if (!is_end) return;
  }
  ++ends_;
  auto it = open_.find(key);
  if (it == open_.end() || s.time < it->second) {
    ++unmatched_ends_;
    return;
  }
  const uint64_t d = s.time - it->second;
  open_.erase(it);
  durations_.push_back(d);
  hist_.add_unsigned(d);
}

std::string SdtLatency::format() const {
  std::string out = fmt::format("{} -> {}, by {}: {} pairs", spec_.begin, spec_.end,
                                spec_.key_arg ? fmt::format("arg{}", spec_.key_arg) : std::string("tid"),
                                durations_.size());
  if (unmatched_ends_) out += fmt::format(", {} end{} without a begin", unmatched_ends_, unmatched_ends_ == 1 ? "" : "s");
  if (!open_.empty()) out += fmt::format(", {} begin{} without an end", open_.size(), open_.size() == 1 ? "" : "s");
  if (replaced_begins_) out += fmt::format(", {} begin{} repeated before an end", replaced_begins_, replaced_begins_ == 1 ? "" : "s");
  out += "\n";
  if (durations_.empty()) return out;
  std::vector<uint64_t> sorted = durations_;
  std::sort(sorted.begin(), sorted.end());
  auto quantile = [&](double q) {
    size_t i = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
    return static_cast<double>(sorted[std::min(i, sorted.size() - 1)]);
  };
  long double sum = 0;
  for (uint64_t d : sorted) sum += d;
  out += fmt::format("  min {}, mean {}, p50 {}, p90 {}, p99 {}, max {}\n", duration_text(static_cast<double>(sorted.front())),
                     duration_text(static_cast<double>(sum / sorted.size())), duration_text(quantile(0.5)),
                     duration_text(quantile(0.9)), duration_text(quantile(0.99)),
                     duration_text(static_cast<double>(sorted.back())));
  out += "  nanoseconds:\n";
  hist_.print(out, "    ");
  return out;
}

}  // namespace sonde::probe
