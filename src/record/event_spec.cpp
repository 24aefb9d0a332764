#include "record/event_spec.h"

#include <fmt/format.h>

#include "format/event_names.h"
#include "format/uapi/perf_event.h"
#include "util/error.h"

namespace sonde::record {

namespace {

// Splits "a,b,c"; commas inside {} are not special (no filters supported).
std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    size_t c = s.find(',', pos);
    out.push_back(s.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

bool apply_modifiers(std::string_view mods, EventSpec& e) {
  if (mods.empty()) return false;
  bool u = false, k = false;
  for (char c : mods) {
    if (c == 'u') u = true;
    else if (c == 'k') k = true;
    else return false;
  }
  // perf: "u" counts user only, "k" kernel only, "uk" both.
  e.exclude_kernel = u && !k;
  e.exclude_user = k && !u;
  return true;
}

EventSpec parse_one(const std::string& text, std::vector<EventSpec>& extra) {
  EventSpec e;
  if (auto g = format::find_generic_event(text)) {
    e.name = text;
    e.type = g->type;
    e.config = g->config;
    return e;
  }
  size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    std::string head = text.substr(0, colon);
    if (auto g = format::find_generic_event(head)) {
      if (!apply_modifiers(std::string_view(text).substr(colon + 1), e))
        throw_usage("unknown modifier in event '{}' (supported: u, k)", text);
      e.name = text;
      e.type = g->type;
      e.config = g->config;
      return e;
    }
    size_t first = text.find(':');
    if (first == colon && colon > 0 && colon + 1 < text.size()) {
      auto tps = find_tracepoints(std::string_view(text).substr(0, colon), std::string_view(text).substr(colon + 1));
      for (size_t i = 0; i < tps.size(); ++i) {
        EventSpec t;
        t.name = tps[i].system + ":" + tps[i].name;
        t.type = PERF_TYPE_TRACEPOINT;
        t.config = tps[i].id;
        t.tracepoint = true;
        t.tp = std::move(tps[i]);
        if (i == 0) e = std::move(t);
        else extra.push_back(std::move(t));
      }
      return e;
    }
  }
  throw_usage("unknown event '{}'", text);
}

}  // namespace

ParsedEvents parse_events(const std::vector<std::string>& args) {
  ParsedEvents out;
  for (const auto& arg : args) {
    for (const auto& item : split_commas(arg)) {
      if (item.empty()) throw_usage("empty event name in '-e {}'", arg);
      if (item[0] == '%') {
        out.extension_specs.push_back(item);
        continue;
      }
      std::vector<EventSpec> extra;
      out.events.push_back(parse_one(item, extra));
      for (auto& x : extra) out.events.push_back(std::move(x));
    }
  }
  if (out.events.empty() && out.extension_specs.empty()) {
    EventSpec e;
    e.name = "cpu-clock";
    e.type = PERF_TYPE_SOFTWARE;
    e.config = PERF_COUNT_SW_CPU_CLOCK;
    out.events.push_back(e);
  }
  return out;
}

std::string fall_back_to_cpu_clock(EventSpec& e, bool has_pmu) {
  if (has_pmu || e.type != PERF_TYPE_HARDWARE || e.config != PERF_COUNT_HW_CPU_CYCLES) return "";
  std::string old = e.name;
  size_t colon = old.find(':');
  e.type = PERF_TYPE_SOFTWARE;
  e.config = PERF_COUNT_SW_CPU_CLOCK;
  e.name = fmt::format("cpu-clock{}", colon == std::string::npos ? std::string() : old.substr(colon));
  return fmt::format("The {} event is not supported, trying to fall back to cpu-clock", old.substr(0, colon));
}

}  // namespace sonde::record
