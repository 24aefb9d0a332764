#include "sched/sched_events.h"

#include <fmt/format.h>

#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/directory_reader.h"
#include "analysis/recording_walker.h"
#include "format/records.h"
#include "format/tracepoint_format.h"
#include "util/byte_reader.h"

namespace sonde::sched {

namespace {

constexpr uint32_t kTracepointType = 2;  // PERF_TYPE_TRACEPOINT
constexpr uint32_t kMaxCpus = 4096;

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

char task_state_char(uint64_t prev_state) {
  static constexpr char kStates[] = "RSDTtZXxKWP";
  if (prev_state == 0) return 'R';
  const size_t i = static_cast<size_t>(__builtin_ctzll(prev_state)) + 1;
  return i < sizeof kStates - 1 ? kStates[i] : '?';
}

// An event's decoder (its kind and fields), from the tracing data, read once.
static const Decoder& decoder_for(const format::EventInfo* event, analysis::RecordingWalker& walker,
                                  std::unordered_map<uint64_t, format::TracepointFormat>& formats,
                                  std::unordered_map<const format::EventInfo*, Decoder>& decoders) {
  auto it = decoders.find(event);
  if (it != decoders.end()) return it->second;
  if (formats.empty()) formats = format::parse_tracing_data(walker.session().tracing_data());
  Decoder d;
  if (event && event->attr.type == kTracepointType)
    if (auto f = formats.find(event->attr.config); f != formats.end()) {
      d.kind = kind_of(f->second);
      for (const auto& field : f->second.fields) d.fields.emplace(field.name, field);
    }
  return decoders.emplace(event, std::move(d)).first->second;
}

SchedWalk walk_sched_events(const std::string& input,
                            const std::function<void(const SchedEvent&, const ThreadInfo&)>& on_event,
                            const std::function<void(const ThreadInfo&)>& on_end) {
  auto reader = analysis::open_input(input);
  analysis::RecordingWalker walker(*reader, analysis::no_unwinding());
  std::unordered_map<uint64_t, format::TracepointFormat> formats;
  std::unordered_map<const format::EventInfo*, Decoder> decoders;
  SchedWalk walk;
  std::unordered_map<uint32_t, std::pair<int32_t, int32_t>> forks;  // tid → (pid, parent tid)
  std::unordered_map<uint32_t, int32_t> sample_pids;                 // tid → pid, from samples
  std::unordered_map<uint32_t, int64_t> exits;                       // tid → exit order
  ThreadInfo info;
  info.comm = [&](uint32_t tid) { return std::string(walker.space().comm(tid, tid)); };
  // perf keeps a thread's first known pid (-1 is not one), from whichever
  // record named the thread first: FORK, COMM or a sample.
  auto note_pid = [&](uint32_t tid, int32_t pid) {
    auto [sp, fresh] = sample_pids.try_emplace(tid, pid);
    if (!fresh && sp->second == -1) sp->second = pid;
  };
  info.pid = [&](uint32_t tid) {
    auto p = sample_pids.find(tid);
    return p == sample_pids.end() ? 0 : p->second;  // 0: as perf's thread first seen as a wakee
  };
  info.ppid = [&](uint32_t tid) {
    auto f = forks.find(tid);
    return f == forks.end() ? -1 : f->second.second;
  };
  info.exit_order = [&](uint32_t tid) -> int64_t {
    auto e = exits.find(tid);
    return e == exits.end() ? -1 : e->second;
  };
  auto on_record = [&](const format::RecordView& rec) {
    const uint32_t type = rec.header.type;
    if (type == 3) {  // PERF_RECORD_COMM: a thread's name changed (perf sched map shows it again)
      if (auto c = format::CommView::parse(rec.bytes)) {
        note_pid(c->tid, static_cast<int32_t>(c->pid));
        SchedEvent ev;
        ev.kind = SchedEvent::Comm;
        ev.sample_pid = c->pid;
        ev.tid = c->tid;
        on_event(ev, info);
      }
      return;
    }
    if (type != 7 && type != 4) return;  // PERF_RECORD_FORK, PERF_RECORD_EXIT
    auto f = format::ForkExitView::parse(rec.bytes);
    if (!f) return;
    if (type == 7) {
      // perf's machine replaces a thread it already had under that tid (one
      // a wakeup named first) with the forked one.
      forks[f->tid] = {static_cast<int32_t>(f->pid), static_cast<int32_t>(f->ptid)};
      sample_pids[f->tid] = static_cast<int32_t>(f->pid);
    }
    else exits.try_emplace(f->tid, static_cast<int64_t>(exits.size()));
  };
  walker.run([&](const format::Sample& s) {
    note_pid(s.tid, static_cast<int32_t>(s.pid));
    ++walk.samples;
    const Decoder& dec = decoder_for(s.event, walker, formats, decoders);
    // perf's MAX_CPUS: the views keep per-CPU state, a damaged CPU field must not size it.
    if (!dec.kind || s.cpu >= kMaxCpus) return;
    SchedEvent ev;
    ev.kind = *dec.kind;
    ev.time = s.time;
    ev.cpu = s.cpu;
    ev.sample_pid = s.pid;
    ev.tid = s.tid;
    if (!decode(dec, s.raw, ev)) return;
    // A task first named by a wakeup or a migration is a thread of pid 0 for
    // perf until a FORK replaces it (its samples do not change that).
    if (ev.kind != SchedEvent::Switch && ev.kind != SchedEvent::Runtime && ev.kind != SchedEvent::Fork)
      sample_pids.try_emplace(ev.pid, 0);
    on_event(ev, info);
  }, on_record);
  walk.lost = walker.stats().lost_samples;
  on_end(info);
  return walk;
}

std::string usec_time(uint64_t ns) { return fmt::format("{}.{:06}", ns / 1000000000, ns % 1000000000 / 1000); }

}  // namespace sonde::sched
