#include "sched/sched_events.h"

#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/directory_reader.h"
#include "analysis/recording_walker.h"
#include "format/tracepoint_format.h"
#include "util/byte_reader.h"

namespace sonde::sched {

namespace {

constexpr uint32_t kTracepointType = 2;  // PERF_TYPE_TRACEPOINT

// One event's fields, by the names the handlers ask for.
struct Decoder {
  std::optional<SchedEvent::Kind> kind;
  std::unordered_map<std::string, format::TracepointField> fields;

  std::optional<uint64_t> value(std::span<const uint8_t> raw, const char* name) const {
    auto it = fields.find(name);
    if (it == fields.end()) return std::nullopt;
    const auto& f = it->second;
    if (f.offset + f.size > raw.size()) return std::nullopt;
    const uint8_t* p = raw.data() + f.offset;
    switch (f.size) {
      case 1: return f.is_signed ? static_cast<uint64_t>(load<int8_t>(p)) : load<uint8_t>(p);
      case 2: return f.is_signed ? static_cast<uint64_t>(load<int16_t>(p)) : load<uint16_t>(p);
      case 4: return f.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(load<int32_t>(p))) : load<uint32_t>(p);
      case 8: return load<uint64_t>(p);
      default: return std::nullopt;
    }
  }
};

std::optional<SchedEvent::Kind> kind_of(const format::TracepointFormat& f) {
  if (f.system != "sched") return std::nullopt;
  if (f.name == "sched_switch") return SchedEvent::Switch;
  if (f.name == "sched_wakeup") return SchedEvent::Wakeup;
  if (f.name == "sched_waking") return SchedEvent::Waking;
  if (f.name == "sched_wakeup_new") return SchedEvent::WakeupNew;
  if (f.name == "sched_migrate_task") return SchedEvent::Migrate;
  if (f.name == "sched_stat_runtime") return SchedEvent::Runtime;
  if (f.name == "sched_process_fork") return SchedEvent::Fork;
  return std::nullopt;
}

// Fills `ev` from the sample's fields; false if one it needs is missing.
bool decode(const Decoder& d, std::span<const uint8_t> raw, SchedEvent& ev) {
  auto get = [&](const char* n, auto& out) {
    auto v = d.value(raw, n);
    if (v) out = static_cast<std::remove_reference_t<decltype(out)>>(*v);
    return v.has_value();
  };
  switch (*d.kind) {
    case SchedEvent::Switch:
      return get("prev_pid", ev.prev_pid) && get("next_pid", ev.next_pid) && get("prev_state", ev.prev_state);
    case SchedEvent::Runtime: return get("pid", ev.pid) && get("runtime", ev.runtime);
    case SchedEvent::Migrate: return get("pid", ev.pid) && get("orig_cpu", ev.orig_cpu) && get("dest_cpu", ev.dest_cpu);
    case SchedEvent::Fork: return get("child_pid", ev.pid);
    default: return get("pid", ev.pid);
  }
}

}  // namespace

SchedWalk walk_sched_events(const std::string& input, const std::function<void(const SchedEvent&)>& on_event,
                            const std::function<void(const ThreadComm&)>& on_end) {
  auto reader = analysis::open_input(input);
  analysis::RecordingWalker walker(*reader, analysis::no_unwinding());
  std::unordered_map<uint64_t, format::TracepointFormat> formats;
  std::unordered_map<const format::EventInfo*, Decoder> decoders;
  SchedWalk walk;
  walker.run([&](const format::Sample& s) {
    ++walk.samples;
    auto it = decoders.find(s.event);
    if (it == decoders.end()) {
      if (formats.empty()) formats = format::parse_tracing_data(walker.session().tracing_data());
      Decoder d;
      if (s.event && s.event->attr.type == kTracepointType)
        if (auto f = formats.find(s.event->attr.config); f != formats.end()) {
          d.kind = kind_of(f->second);
          for (const auto& field : f->second.fields) d.fields.emplace(field.name, field);
        }
      it = decoders.emplace(s.event, std::move(d)).first;
    }
    if (!it->second.kind) return;
    SchedEvent ev;
    ev.kind = *it->second.kind;
    ev.time = s.time;
    ev.cpu = s.cpu;
    ev.tid = s.tid;
    if (decode(it->second, s.raw, ev)) on_event(ev);
  });
  walk.lost = walker.stats().lost_samples;
  on_end([&](uint32_t tid) { return std::string(walker.space().comm(tid, tid)); });
  return walk;
}

}  // namespace sonde::sched
