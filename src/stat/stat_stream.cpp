#include "stat/stat_stream.h"

#include <cstring>
#include <unordered_map>

#include "format/event_names.h"
#include "format/record_builder.h"
#include "format/records.h"
#include "util/error.h"

namespace sonde::stat {

namespace {

void finish(format::StreamWriter& out, format::RecordBuilder& b) {
  if (!b.finish()) throw_runtime("a stat record would exceed 64 KiB (too many threads or CPUs to record)");
  out.write_record(b.bytes());
}

void write_event_updates(format::StreamWriter& out, const CounterEvent& ev, uint64_t id) {
  if (!ev.unit.empty()) {
    format::RecordBuilder b(format::kEventUpdate, 0);
    b.put(format::kEventUpdateUnit).put(id).put_cstring(ev.unit);
    finish(out, b);
  }
  if (ev.scale != 1.0) {
    format::RecordBuilder b(format::kEventUpdate, 0);
    b.put(format::kEventUpdateScale).put(id).put(ev.scale);
    finish(out, b);
  }
  out.write_event_update_name(id, ev.name);
}

void write_thread_map(format::StreamWriter& out, const CountTable& t) {
  format::RecordBuilder b(format::kThreadMap, 0);
  b.put(static_cast<uint64_t>(t.threads.size()));
  for (const auto& th : t.threads) {
    format::ThreadMapEntry e{};
    e.pid = static_cast<uint64_t>(static_cast<int64_t>(th.pid));
    std::strncpy(e.comm, th.comm.c_str(), sizeof e.comm - 1);
    b.put(e);
  }
  finish(out, b);
}

void write_cpu_map(format::StreamWriter& out, const CountTable& t) {
  format::RecordBuilder b(format::kCpuMap, 0);
  b.put(format::kCpuMapCpus).put(static_cast<uint16_t>(t.cpus.size()));
  for (int c : t.cpus) b.put(static_cast<uint16_t>(c < 0 ? 0xffff : c));
  b.pad_to(8);
  finish(out, b);
}

void write_stat_config(format::StreamWriter& out, AggrMode mode, unsigned interval_ms) {
  format::RecordBuilder b(format::kStatConfig, 0);
  b.put(uint64_t{3});
  b.put(format::StatConfigTerm{format::kStatConfigAggrMode, static_cast<uint64_t>(mode)});
  b.put(format::StatConfigTerm{format::kStatConfigInterval, interval_ms});
  b.put(format::StatConfigTerm{format::kStatConfigScale, 1});
  finish(out, b);
}

}  // namespace

void StatStreamWriter::write_header(const CountTable& t, const CounterIds& ids, AggrMode mode, unsigned interval_ms) {
  out_.write_pipe_header();
  std::vector<uint64_t> first_id(t.events.size(), 0);
  for (size_t e = 0; e < t.events.size(); ++e) {
    std::vector<uint64_t> v;
    for (size_t c = 0; c < t.cpus.size(); ++c)
      for (size_t th = 0; th < t.threads.size(); ++th)
        if (uint64_t id = ids(e, c, th)) v.push_back(id);
    out_.write_attr(t.events[e].attr, v);
    if (!v.empty()) first_id[e] = v[0];
  }
  // perf names only the events it opened: the others have no id to name.
  for (size_t e = 0; e < t.events.size(); ++e)
    if (first_id[e]) write_event_updates(out_, t.events[e], first_id[e]);
  write_thread_map(out_, t);
  write_cpu_map(out_, t);
  write_stat_config(out_, mode, interval_ms);
  out_.flush();
}

void StatStreamWriter::write_round(const CountTable& t, const CounterIds& ids, bool final, uint64_t time_ns) {
  for (size_t e = 0; e < t.events.size(); ++e)
    for (size_t c = 0; c < t.cpus.size(); ++c)
      for (size_t th = 0; th < t.threads.size(); ++th) {
        uint64_t id = ids(e, c, th);
        if (!id) continue;
        const CountValue& v = t.at(e, c, th);
        format::StatRecord r{};
        r.header = {format::kStat, 0, sizeof r};
        r.id = id;
        r.cpu = static_cast<uint32_t>(t.cpus[c]);
        r.thread = static_cast<uint32_t>(th);
        r.val = v.val;
        r.ena = v.ena;
        r.run = v.run;
        out_.write_record(&r, sizeof r);
      }
  format::StatRoundRecord round{};
  round.header = {format::kStatRound, 0, sizeof round};
  round.type = final ? format::kStatRoundFinal : format::kStatRoundInterval;
  round.time = time_ns;
  out_.write_record(&round, sizeof round);
  out_.flush();
}

}  // namespace sonde::stat

namespace sonde::stat {

namespace {

// The stream's facts as they arrive, before the first round.
struct ReadState {
  std::unordered_map<uint64_t, size_t> event_of_id;
  std::vector<bool> named;
};

void on_attr(const format::RecordView& r, CountTable& t, ReadState& st) {
  std::string why;
  auto a = format::HeaderAttrView::parse(r.bytes, &why);
  if (!a) throw_runtime("bad HEADER_ATTR at offset {}: {}", r.offset, why);
  CounterEvent ev;
  ev.attr = a->attr;
  ev.name = format::default_event_name(a->attr);
  if (ev.is_clock()) {
    ev.unit = "msec";
    ev.scale = 1e-6;
  }
  ev.supported = a->id_count() > 0;
  for (size_t i = 0; i < a->id_count(); ++i) st.event_of_id[a->id(i)] = t.events.size();
  t.events.push_back(std::move(ev));
  st.named.push_back(false);
}

void on_event_update(const format::RecordView& r, CountTable& t, ReadState& st) {
  auto u = format::EventUpdateView::parse(r.bytes);
  if (!u) return;
  auto it = st.event_of_id.find(u->id);
  if (it == st.event_of_id.end()) return;
  auto& ev = t.events[it->second];
  if (auto n = u->name()) ev.name = std::string(*n);
  if (auto un = u->unit()) ev.unit = std::string(*un);
  if (auto sc = u->scale()) ev.scale = *sc;
}

void on_stat(const format::RecordView& r, CountTable& t, const ReadState& st) {
  auto s = format::StatView::parse(r.bytes);
  if (!s) throw_runtime("bad STAT record at offset {}", r.offset);
  auto it = st.event_of_id.find(s->rec.id);
  if (it == st.event_of_id.end()) throw_runtime("STAT record at offset {} names unknown counter id {}", r.offset, s->rec.id);
  int cpu_idx = t.cpu_index(static_cast<int32_t>(s->rec.cpu));
  if (cpu_idx < 0 && s->rec.cpu < t.cpus.size()) cpu_idx = static_cast<int>(s->rec.cpu);  // older perfs: an index
  if (cpu_idx < 0 || s->rec.thread >= t.threads.size())
    throw_runtime("STAT record at offset {} is for CPU {} thread {}, outside the stream's maps", r.offset,
                  static_cast<int32_t>(s->rec.cpu), s->rec.thread);
  t.at(it->second, cpu_idx, s->rec.thread) = {s->rec.val, s->rec.ena, s->rec.run};
}

void on_stat_config(const format::RecordView& r, StatStreamConfig& config) {
  auto c = format::StatConfigView::parse(r.bytes);
  if (!c) return;
  for (size_t i = 0; i < c->count(); ++i) {
    auto term = c->term(i);
    if (term.tag == format::kStatConfigAggrMode && (term.val <= static_cast<uint64_t>(AggrMode::Thread) || term.val == static_cast<uint64_t>(AggrMode::Node)))
      config.mode = static_cast<AggrMode>(term.val);
    else if (term.tag == format::kStatConfigInterval)
      config.interval_ms = static_cast<unsigned>(term.val);
    else if (term.tag == format::kStatConfigScale)
      config.scale = term.val != 0;
  }
}

// Hostile input: the grid is events x CPUs x threads, which three small
// records could make huge. A real stream holds an id (8 bytes) for every
// counter it opened; the slack covers events the kernel refused (no ids).
void check_table_size(const CountTable& t, size_t ids) {
  double cells = static_cast<double>(t.events.size()) * t.cpus.size() * t.threads.size();
  if (cells > 8.0 * static_cast<double>(ids) + 65536)
    throw_runtime("stat stream claims {} events x {} CPUs x {} threads for {} counter ids: not a real stream",
                  t.events.size(), t.cpus.size(), t.threads.size(), ids);
}

}  // namespace

void read_stat_stream(format::RecordReader& in, CountTable& t, StatStreamConfig& config,
                      const std::function<void(const CountTable&, const StatStreamConfig&, const StatRound&)>& on_round) {
  ReadState st;
  bool maps = false;
  format::RecordView r;
  while (in.next(r)) {
    switch (r.header.type) {
      case format::kHeaderAttr: on_attr(r, t, st); break;
      case format::kEventUpdate: on_event_update(r, t, st); break;
      case format::kThreadMap:
        if (auto m = format::ThreadMapView::parse(r.bytes)) {
          t.threads.clear();
          for (size_t i = 0; i < m->count(); ++i) {
            auto e = m->entry(i);
            t.threads.push_back({static_cast<int>(static_cast<int64_t>(e.pid)), e.comm});
          }
        }
        break;
      case format::kCpuMap:
        if (auto m = format::CpuMapView::parse(r.bytes)) t.cpus = m->cpus();
        break;
      case format::kStatConfig:
        on_stat_config(r, config);
        if (t.cpus.empty() || t.threads.empty()) throw_runtime("the stream's CPU or thread map is empty");
        check_table_size(t, st.event_of_id.size());
        t.reset_values();
        maps = true;
        break;
      case format::kStat:
        if (!maps) throw_runtime("STAT record at offset {} before the stream's STAT_CONFIG", r.offset);
        on_stat(r, t, st);
        break;
      case format::kStatRound:
        if (auto sr = format::StatRoundView::parse(r.bytes); sr && maps)
          on_round(t, config, StatRound{sr->rec.type == format::kStatRoundFinal, sr->rec.time});
        break;
      default: break;
    }
  }
  if (!in.error().empty()) throw_runtime("{}", in.error());
  if (!maps) throw_runtime("no counts in this stream (it was not written by stat record)");
}

}  // namespace sonde::stat
